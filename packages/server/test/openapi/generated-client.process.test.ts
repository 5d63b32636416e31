import { execFile } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@foxbell/test-support';
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, pushToken, startServer } from '../helpers.js';

/**
 * A client generated from the document as people generate one: `openapi-typescript` at its default
 * options and `openapi-fetch`, compiled by tsc (strict) with the calls the README makes (its "From
 * code" send, a status read) and those an account key makes for its devices and tokens, then run
 * against a real server.
 */

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const resolve = createRequire(path.join(PACKAGE, 'package.json')).resolve;
const bin = (name: string, file: string) => path.join(path.dirname(resolve(`${name}/package.json`)), file);

/** Runs a Node script to its end: its exit code and what it printed. */
function node(args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; out: string }>((done) => {
    execFile(
      process.execPath,
      args,
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

/** The calls, as an app would write them; what each responded is printed as JSON for the test. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const exactly = <A, B>(_proof: Equal<A, B>) => {};

// The error body is typed down to its details; a send's bell_color is text.
type ErrorBody = components['schemas']['Error'];
exactly<NonNullable<ErrorBody['error']['details']>['generation'], number | undefined>(true);
exactly<NonNullable<ErrorBody['error']['details']>['limit'], number | string | undefined>(true);
type SendBody = NonNullable<paths['/v1/notifications']['post']['requestBody']>['content']['application/json'];
exactly<SendBody['bell_color'], string | undefined>(true);

const baseUrl = process.env.BASE_URL as string;
const as = (credential: string) =>
  createClient<paths>({ baseUrl, headers: { authorization: 'Bearer ' + credential } });
function must<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(result.response.status + ' ' + JSON.stringify(result.error));
  return result.data;
}
const seen: Record<string, unknown> = {};

// The operator makes an account; its key manages devices and tokens.
const account = must(await as(process.env.ADMIN_KEY as string).POST('/v1/accounts', { body: {} }));
const owner = as(account.key);
const device = must(
  await owner.POST('/v1/devices', {
    body: { name: 'iPhone', platform: 'ios', push_token: process.env.PUSH_TOKEN as string },
  }),
);
const renamed = must(
  await owner.PATCH('/v1/devices/{id}', { params: { path: { id: device.id } }, body: { name: "Ana's iPhone" } }),
);
seen.device = { name: renamed.name, in_auto: renamed.in_auto, active: renamed.active };
const listed = must(await owner.GET('/v1/devices'));
seen.devices = listed.devices.map((each) => each.name);
const token = must(await owner.POST('/v1/tokens', { body: {} }));
seen.token = { name: token.name, kind: token.kind, own_status: token.own_status };
seen.tokens = must(await owner.GET('/v1/tokens')).tokens.map((each) => each.id === token.id);

// The README's send, and a status read.
const client = as(token.token);
const sent = must(
  await client.POST('/v1/notifications', {
    body: { message: 'Build passed', scene: 'rocket', scene_params: { color: 'green' } },
  }),
);
seen.sent = sent.status;
const status = must(await client.GET('/v1/notifications/{id}/status', { params: { path: { id: sent.id } } }));
seen.status = { id: status.id === sent.id, status: status.status, destinations: status.destinations.length };

// Errors, read as typed error bodies.
const refused = await client.POST('/v1/notifications', { body: { message: 'Build passed', scene: 'nowhere' } });
seen.refused = { status: refused.response.status, code: refused.error?.error.code, field: refused.error?.error.field };
const stale = await owner.POST('/v1/account/key', { body: { generation: 7 } });
seen.stale = { code: stale.error?.error.code, generation: stale.error?.error.details?.generation };

const revoking = await owner.DELETE('/v1/tokens/{id}', { params: { path: { id: token.id } } });
seen.revoking = revoking.response.status;
const revoked = await client.GET('/v1/notifications/{id}/status', { params: { path: { id: sent.id } } });
seen.revoked = { status: revoked.response.status, code: revoked.error?.error.code };
const removed = await owner.DELETE('/v1/devices/{id}', { params: { path: { id: device.id } } });
seen.removed = removed.response.status;

console.log(JSON.stringify(seen));
`;

describe('a client generated from the document', () => {
  it('compiles with the README calls at openapi-typescript’s default options, and runs them', async () => {
    const server = await startServer();
    const dir = await tempDir();
    // The client's imports (openapi-fetch) resolve as in an app that installed it.
    await symlink(path.join(PACKAGE, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(path.join(dir, 'openapi.json'), (await server.request('GET', '/openapi.json')).text);
    await writeFile(path.join(dir, 'client.ts'), CLIENT);
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['client.ts'],
      }),
    );

    const generated = await node(
      [bin('openapi-typescript', 'bin/cli.js'), 'openapi.json', '-o', 'schema.ts'],
      dir,
    );
    expect(generated.code, generated.out).toBe(0);
    const compiled = await node([bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json'], dir);
    expect(compiled.code, compiled.out).toBe(0);

    const ran = await node(['client.js'], dir, {
      BASE_URL: server.url,
      ADMIN_KEY,
      PUSH_TOKEN: pushToken(),
    });
    expect(ran.code, ran.out).toBe(0);
    expect(JSON.parse(ran.out)).toEqual({
      device: { name: "Ana's iPhone", in_auto: true, active: true },
      devices: ["Ana's iPhone"],
      token: { name: 'Sender', kind: 'standard', own_status: true },
      tokens: [true],
      sent: 'accepted',
      status: { id: true, status: 'accepted', destinations: 0 },
      refused: { status: 400, code: 'invalid_scene', field: 'scene' },
      stale: { code: 'rotation_conflict', generation: 1 },
      revoking: 204,
      revoked: { status: 401, code: 'token_revoked' },
      removed: 204,
    });
  }, 180_000);
});
