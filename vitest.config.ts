import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SERVER_TEST_TIMEOUTS } from './packages/server/vitest.config.js';

// One project per package; `pnpm test` runs them all, `vitest run --project sdk` one of them.
// The server's suite runs a second time on PostgreSQL, each test on a schema of its own: the
// files named `*.stores.test.ts` and `*.postgres.test.ts` (the latter only there).

/**
 * `pnpm test:fast` (`FOXBELL_TIER=fast`): every unit and contract test that starts no process (no
 * server process, browser, proxy or other Node), on SQLite, the SDK's and the server's. `pnpm test`
 * runs everything.
 */
const FAST = process.env.FOXBELL_TIER === 'fast';
/** Files that start a process of some kind, by the project they belong to. */
const STARTS_PROCESSES = {
  sdk: ['test/packaging.test.ts', 'test/**/*.process.*'],
  server: ['test/**/*.process.*'],
};

/**
 * Files run at once: vitest's default leaves one core free, which on a 2-core machine runs the
 * suite one file at a time. Most files wait on the processes they start (servers, browsers, a
 * container build), so two at a time on two cores halves the run without starving either.
 */
const WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    projects: FAST
      ? [
          {
            extends: './packages/sdk/vitest.config.ts',
            root: './packages/sdk',
            test: { exclude: ['**/node_modules/**', ...STARTS_PROCESSES.sdk] },
          },
          {
            extends: './packages/server/vitest.config.ts',
            root: './packages/server',
            test: {
              exclude: ['**/node_modules/**', 'test/**/*.postgres.test.ts', ...STARTS_PROCESSES.server],
            },
          },
        ]
      : [
          'packages/*',
          // The SDK on Bun, Deno and workerd, which `pnpm test:runtimes` installs and names here.
          ...(process.env.FOXBELL_RUNTIMES
            ? [
                {
                  root: './packages/sdk',
                  test: { name: 'sdk-runtimes', include: ['test/**/*.runtimes.test.ts'] },
                },
              ]
            : []),
          // The example of testing an app with @foxbell/sdk/testing runs as users would run it.
          'examples/testing-with-vitest',
          // The SDK's hooks wired to OpenTelemetry, checked the same way.
          'examples/tracing-with-opentelemetry',
          {
            // Not `extends` of the server's config: arrays such as `exclude` would be merged.
            root: './packages/server',
            test: {
              name: 'server-postgres',
              env: { FOXBELL_TEST_STORE: 'postgres' },
              // By name (packages/server/vitest.config.ts): the tests that touch a store, and those
              // of PostgreSQL alone.
              include: ['test/**/*.stores.test.ts', 'test/**/*.postgres.test.ts'],
              globalSetup: ['./test/postgres-setup.ts'],
              ...SERVER_TEST_TIMEOUTS,
            },
          },
        ],
  },
});
