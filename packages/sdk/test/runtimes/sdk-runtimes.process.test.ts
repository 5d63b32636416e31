import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { call, EXTRA_NODES, startServerWithToken } from '@foxbell/test-support';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./sdk-smoke.mjs', import.meta.url));
const worker = fileURLToPath(new URL('./sdk-worker.mjs', import.meta.url));
const binary = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

/**
 * Every runtime the SDK claims, each running the same checks as an app there would. Bun, Deno and
 * workerd (through miniflare) come from the npm registry as dev dependencies. More Node versions are named by
 * `FOXBELL_EXTRA_NODES` (paths, separated by `:`): CI names Node 22 and 24, and fails without them.
 */
if (process.env.CI === 'true' && EXTRA_NODES.length === 0) {
  throw new Error('CI runs the SDK on Node 22 and 24 too: set FOXBELL_EXTRA_NODES');
}
const RUNTIMES: [string, string, string[]][] = [
  ['Node (this run)', process.execPath, []],
  ...EXTRA_NODES.map((path): [string, string, string[]] => [`Node at ${path}`, path, []]),
  ['Bun', binary('bun'), []],
  ['Deno', binary('deno'), ['run', '--allow-net', '--allow-read', '--allow-env']],
];

/** What `runtimes/sdk-checks.mjs` sees in every runtime. */
const SEEN = {
  status: 'sent_to_push',
  validation: 'ValidationError:invalid_field',
  validationIsTyped: true,
  notFound: 'NotFoundError:not_found',
  notFoundIsTyped: true,
};

/** What the runtime sent reached the simulated iPhone. */
async function expectDelivered(serverUrl: string, accountKey: string, runtime: string): Promise<void> {
  const inbox = await call(serverUrl, 'GET', '/v1/inbox', { token: accountKey });
  expect(inbox.body.items.map((item: { message: string }) => item.message)).toEqual([`from ${runtime}`]);
}

describe('the SDK in every runtime it claims, against a real foxbell-server', () => {
  it.each(RUNTIMES)(
    '%s: send, waitFor sent_to_push, a ValidationError before sending, a NotFoundError',
    async (name, path, args) => {
      const { server, accountKey, token } = await startServerWithToken();
      const { stdout } = await run(path, [...args, script, server.url, token, name], {
        timeout: 30_000,
      });
      expect(JSON.parse(stdout.trim().split('\n').at(-1) as string), name).toEqual(SEEN);
      await expectDelivered(server.url, accountKey, name);
    },
    60_000,
  );

  it('workerd (Cloudflare Workers, run by miniflare), the SDK bundled as a worker: the same', async () => {
    const { server, accountKey, token } = await startServerWithToken();
    const bundle = await build({
      entryPoints: [worker],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['workerd', 'worker', 'browser'],
      write: false,
    });
    const workerd = new Miniflare({
      modules: true,
      script: bundle.outputFiles[0]?.text ?? '',
      compatibilityDate: '2026-07-01',
      bindings: { BASE_URL: server.url, TOKEN: token },
    });
    try {
      const response = await workerd.dispatchFetch('http://worker.test/');
      expect(await response.json()).toEqual(SEEN);
    } finally {
      await workerd.dispose();
    }
    await expectDelivered(server.url, accountKey, 'workerd');
  }, 60_000);
});
