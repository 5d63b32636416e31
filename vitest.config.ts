import { defineConfig } from 'vitest/config';

// One project per package; `pnpm test` runs them all, `vitest run --project sdk` one of them.
// The server's suite runs a second time on PostgreSQL, each test on a schema of its own.
// Files named *.postgres.test.ts run only there.
export default defineConfig({
  test: {
    projects: [
      'packages/*',
      {
        // Not `extends` of the server's config: arrays such as `exclude` would be merged.
        root: './packages/server',
        test: {
          name: 'server-postgres',
          env: { FOXBELL_TEST_STORE: 'postgres' },
          // The suite's tests that touch a store, and those of PostgreSQL alone; not those of
          // SQLite alone, nor those that touch no store.
          include: ['test/**/*.test.ts'],
          exclude: [
            'test/apns.test.ts',
            'test/apns-rules.test.ts',
            'test/process.test.ts',
            'test/crash.test.ts',
            'test/sqlite-*.test.ts',
            'test/ids.test.ts',
            'test/secrets.test.ts',
            'test/sdk-runtimes.test.ts',
            'test/sdk-browser.test.ts',
            'test/config.test.ts',
          ],
          globalSetup: ['./test/postgres-setup.ts'],
        },
      },
    ],
  },
});
