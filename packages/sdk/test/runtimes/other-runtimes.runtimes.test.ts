import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startServerWithToken } from '@foxbell/test-support';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { expectDelivered, SEEN } from './seen.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./sdk-smoke.mjs', import.meta.url));
const worker = fileURLToPath(new URL('./sdk-worker.mjs', import.meta.url));

/**
 * The SDK on Bun, Deno and Cloudflare's workerd (run by miniflare), each running the same checks as
 * an app there would. The three are no dependency of the workspace (together a third of an install
 * that needs them for nothing else): `pnpm test:runtimes` installs them with npm, at the versions
 * the catalog pins, into the folder `FOXBELL_RUNTIMES` names, and runs this.
 */
const RUNTIMES_DIR = process.env.FOXBELL_RUNTIMES;
if (!RUNTIMES_DIR || !existsSync(path.join(RUNTIMES_DIR, 'node_modules'))) {
  throw new Error('Bun, Deno and workerd are installed by `pnpm test:runtimes`, which runs this file');
}
const binary = (name: string) => path.join(RUNTIMES_DIR, 'node_modules', '.bin', name);

/** What of miniflare this test uses. */
interface Workerd {
  dispatchFetch(url: string): Promise<{ json(): Promise<unknown> }>;
  dispose(): Promise<void>;
}
type MiniflareClass = new (options: Record<string, unknown>) => Workerd;

describe('the SDK on Bun, Deno and workerd, against a real foxbell-server', () => {
  it.each([
    ['Bun', binary('bun'), []],
    ['Deno', binary('deno'), ['run', '--allow-net', '--allow-read', '--allow-env']],
  ] as [string, string, string[]][])(
    '%s: send, waitFor sent_to_push, a ValidationError before sending, a NotFoundError',
    async (name, file, args) => {
      const { server, accountKey, token } = await startServerWithToken();
      const { stdout } = await run(file, [...args, script, server.url, token, name], { timeout: 30_000 });
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
    const entry = createRequire(path.join(RUNTIMES_DIR, 'package.json')).resolve('miniflare');
    const { Miniflare } = (await import(pathToFileURL(entry).href)) as { Miniflare: MiniflareClass };
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
