import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { EXTRA_NODES, startServerWithToken } from '@foxbell/test-support';
import { describe, expect, it } from 'vitest';
import { expectDelivered, SEEN } from './seen.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./sdk-smoke.mjs', import.meta.url));

/**
 * The SDK on every Node it claims, each running the same checks as an app there would: this run's,
 * and more named by `FOXBELL_EXTRA_NODES` (paths, separated by `:`): CI names Node 22 and 24, and
 * fails without them. Bun, Deno and workerd: `other-runtimes.runtimes.test.ts` (`pnpm test:runtimes`).
 */
if (process.env.CI === 'true' && EXTRA_NODES.length === 0) {
  throw new Error('CI runs the SDK on Node 22 and 24 too: set FOXBELL_EXTRA_NODES');
}
const RUNTIMES: [string, string, string[]][] = [
  ['Node (this run)', process.execPath, []],
  ...EXTRA_NODES.map((path): [string, string, string[]] => [`Node at ${path}`, path, []]),
];

describe('the SDK on every Node it claims, against a real foxbell-server', () => {
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
});
