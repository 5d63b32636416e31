import { defineConfig } from 'vitest/config';

// One project per package; `pnpm test` runs them all, `vitest run --project sdk` one of them.
// The server's suite runs a second time on PostgreSQL, each test on a schema of its own: the
// files under test/stores/ and test/postgres/ (the latter only there).
export default defineConfig({
  test: {
    projects: [
      'packages/*',
      // The example of testing an app with @foxbell/sdk/testing runs as users would run it.
      'examples/testing-with-vitest',
      {
        // Not `extends` of the server's config: arrays such as `exclude` would be merged.
        root: './packages/server',
        test: {
          name: 'server-postgres',
          env: { FOXBELL_TEST_STORE: 'postgres' },
          // By folder (packages/server/vitest.config.ts): the tests that touch a store, and those
          // of PostgreSQL alone.
          include: ['test/stores/**/*.test.ts', 'test/postgres/**/*.test.ts'],
          globalSetup: ['./test/postgres-setup.ts'],
        },
      },
    ],
  },
});
