import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'server',
    include: ['test/**/*.test.ts'],
    // Those run on PostgreSQL only: the `server-postgres` project of the root config.
    exclude: ['test/**/*.postgres.test.ts'],
  },
});
