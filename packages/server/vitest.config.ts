import { defineProject } from 'vitest/config';

/**
 * Most of the server's tests start a server (in the test's process or as a process of its own) and
 * talk to it over real sockets, many of them on PostgreSQL. On a 2-core machine running two files
 * at once, one beside a file that loads every core (several server processes pushing thousands of
 * sends), a test that takes 1.5 s alone has taken over 5 s, vitest's default: CI failed on such
 * timeouts, not on a wrong response. These limits are for a test that hangs, not a measure of speed
 * (benchmarks measure that); the root config's `server-postgres` project takes the same.
 */
export const SERVER_TEST_TIMEOUTS = { testTimeout: 30_000, hookTimeout: 30_000 };

// The suite mirrors the source: a test lives in the folder of the module it tests (test/http/ for
// src/http/, and so on). Its name says how it runs: `*.stores.test.ts` on each store (here on
// SQLite, and again on PostgreSQL as the root config's `server-postgres`), `*.postgres.test.ts` on
// PostgreSQL only, `*.process.*` starts a process of some kind (left out of `pnpm test:fast`), and
// every other file runs once.
export default defineProject({
  test: {
    name: 'server',
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.postgres.test.ts'],
    ...SERVER_TEST_TIMEOUTS,
  },
});
