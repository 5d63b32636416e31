import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import LongestFirst from '@foxbell/test-support/longest-first';
import { defineConfig } from 'vitest/config';
import { ENTRIES, specifierOf } from './packages/sdk/entries.js';
import { SERVER_TEST_TIMEOUTS } from './packages/server/vitest.config.js';

// One project per package; `pnpm test` runs them all, `vitest run --project sdk` one of them.
// The server's suite runs a second time on PostgreSQL, each test on an empty schema: the
// files named `*.stores.test.ts` and `*.postgres.test.ts` (the latter only there).

/**
 * `pnpm test:fast` (`FOXBELL_TIER=fast`): every package's unit and contract tests, those that
 * start no process (no server, browser, proxy or other Node) and open no socket beyond loopback,
 * the server's on SQLite. A file that does either is named `*.process.*`; the tier does not trust
 * the names, it holds every test to the rule (test-support's fast-tier guard refuses a process or
 * a socket elsewhere). `pnpm test` runs everything.
 */
const FAST = process.env.FOXBELL_TIER === 'fast';
/** Files that start a process of some kind. */
const STARTS_PROCESSES = ['test/**/*.process.*'];
/**
 * Workers that run file after file, each file with its own copy of the workspace's modules
 * (test-support's fresh-modules): for every package's tests, in both tiers.
 */
const FRESH_MODULES = '@foxbell/test-support/fresh-modules';
const SHARED_WORKERS = { isolate: false, setupFiles: [FRESH_MODULES] };
/** The fast tier's: the guard as well. */
const FAST_TIER = { ...SHARED_WORKERS, setupFiles: [FRESH_MODULES, '@foxbell/test-support/fast-tier-setup'] };
/**
 * The fast tier imports `@foxbell/sdk` from its sources, so it needs no build first (the build
 * took longer than the rest of the tier together on a loaded machine); `pnpm test` tests the
 * built package, as users get it.
 */
const SDK_SOURCES = Object.entries(ENTRIES).map(([entry, source]) => ({
  find: new RegExp(`^${specifierOf(entry)}$`),
  replacement: fileURLToPath(new URL(`./packages/sdk/${source}`, import.meta.url)),
}));

/**
 * Files run at once, by every project (each takes it from here: see `projects`): vitest's default
 * leaves one core free, which on a 2-core machine runs the suite one file at a time. Most files
 * wait on the processes they start (servers, browsers, a container build), so two at a time on two
 * cores halves the run without starving either.
 */
const WORKERS = Math.max(2, availableParallelism() - 1);

/**
 * A package's or an example's own config (its `vitest.config`), as a project: inline rather than
 * named by its path, since a project named by its path takes none of this file's options (vitest's
 * default `maxWorkers` then ran every file not on PostgreSQL one at a time), and named again, since
 * `extends` does not carry the name over.
 */
const project = (root: string, config: string, name: string, test: object = {}) => ({
  extends: `${root}/${config}`,
  root,
  ...(FAST ? { resolve: { alias: SDK_SOURCES } } : {}),
  test: { name, maxWorkers: WORKERS, ...test },
});
const packageProject = (name: string, test: object = {}) =>
  project(`./packages/${name}`, 'vitest.config.ts', name, test);

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    sequence: { sequencer: LongestFirst },
    projects: FAST
      ? [
          ...['sdk', 'cli', 'start'].map((name) =>
            packageProject(name, { exclude: ['**/node_modules/**', ...STARTS_PROCESSES], ...FAST_TIER }),
          ),
          packageProject('server', {
            exclude: ['**/node_modules/**', 'test/**/*.postgres.test.ts', ...STARTS_PROCESSES],
            ...FAST_TIER,
          }),
        ]
      : [
          ...['sdk', 'cli', 'server', 'start'].map((name) => packageProject(name, SHARED_WORKERS)),
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
          project('./examples/testing-with-vitest', 'vitest.config.js', 'examples'),
          // The SDK's hooks wired to OpenTelemetry, checked the same way.
          project('./examples/tracing-with-opentelemetry', 'vitest.config.js', 'example-tracing'),
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
              ...SHARED_WORKERS,
            },
          },
        ],
  },
});
