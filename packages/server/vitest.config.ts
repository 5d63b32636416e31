import { defineProject } from 'vitest/config';

// The suite mirrors the source: a test lives in the folder of the room it tests (test/http/ for
// src/http/, and so on). Its name says how it runs: `*.stores.test.ts` on each store (here on
// SQLite, and again on PostgreSQL as the root config's `server-postgres`), `*.postgres.test.ts` on
// PostgreSQL only, `*.process.*` starts a process of some kind (left out of `pnpm test:fast`), and
// every other file runs once.
export default defineProject({
  test: {
    name: 'server',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.postgres.test.ts'],
  },
});
