import { defineProject } from 'vitest/config';

// The suite's folders say how each file runs: test/stores/ on each store (here on SQLite, and
// again on PostgreSQL as the root config's `server-postgres`), test/postgres/ on PostgreSQL only,
// and every other folder once.
export default defineProject({
  test: {
    name: 'server',
    include: ['test/**/*.test.ts'],
    exclude: ['test/postgres/**'],
  },
});
