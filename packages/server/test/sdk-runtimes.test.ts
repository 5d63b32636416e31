import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { send } from './helpers.js';
import { startServerWithToken } from './processes.js';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./runtimes/sdk-smoke.mjs', import.meta.url));
const binary = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

/**
 * Every runtime the SDK claims, each running the same script as an app there would. Bun and Deno
 * come from the npm registry as dev dependencies. More Node versions are named by
 * `FOXBELL_EXTRA_NODES` (paths, separated by `:`): CI names Node 22 and 24, and fails without them.
 */
const extraNodes = (process.env.FOXBELL_EXTRA_NODES ?? '').split(':').filter((path) => path !== '');
if (process.env.CI === 'true' && extraNodes.length === 0) {
  throw new Error('CI runs the SDK on Node 22 and 24 too: set FOXBELL_EXTRA_NODES');
}
const RUNTIMES: [string, string, string[]][] = [
  ['Node (this run)', process.execPath, []],
  ...extraNodes.map((path): [string, string, string[]] => [`Node at ${path}`, path, []]),
  ['Bun', binary('bun'), []],
  ['Deno', binary('deno'), ['run', '--allow-net', '--allow-read', '--allow-env']],
];

describe('the SDK in every runtime it claims, against a real foxbell-server', () => {
  it.each(RUNTIMES)(
    '%s: send, waitFor sent_to_push, a ValidationError before sending, a NotFoundError',
    async (name, path, args) => {
      const { server, accountKey, token } = await startServerWithToken();
      const { stdout } = await run(path, [...args, script, server.url, token, name], {
        timeout: 30_000,
      });
      expect(JSON.parse(stdout.trim().split('\n').at(-1) as string), name).toEqual({
        status: 'sent_to_push',
        validation: 'ValidationError:invalid_field',
        validationIsTyped: true,
        notFound: 'NotFoundError:not_found',
        notFoundIsTyped: true,
      });
      // What each runtime sent reached the simulated iPhone.
      const inbox = await send(server.url, 'GET', '/v1/inbox', { token: accountKey });
      expect(inbox.body.items.map((item: { message: string }) => item.message)).toEqual([`from ${name}`]);
    },
    60_000,
  );
});
