import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN, BIN, startProcess, tempDir } from '../processes.js';

const run = promisify(execFile);
const UNIT = fileURLToPath(new URL('../../../../deploy/foxbell-server.service', import.meta.url));

/** The unit as shipped, its ExecStart pointed at this checkout's foxbell-server. */
async function unitHere(dir: string): Promise<{ file: string; text: string }> {
  const text = await readFile(UNIT, 'utf8');
  expect(text).toContain('\nExecStart=/usr/local/bin/foxbell-server\n');
  const file = path.join(dir, 'foxbell-server.service');
  await writeFile(file, text.replace('ExecStart=/usr/local/bin/foxbell-server', `ExecStart=${BIN}`));
  return { file, text };
}

describe('deploy/foxbell-server.service', () => {
  it('passes systemd-analyze verify, and its hardening rates as OK exposure', async () => {
    const { file, text } = await unitHere(await tempDir());
    const verified = await run('systemd-analyze', ['verify', file]).catch((error) => error);
    expect([verified.stdout, verified.stderr]).toEqual(['', '']);
    const security = await run('systemd-analyze', ['security', '--offline=yes', file]);
    const exposure = Number(/Overall exposure level for \S+: ([\d.]+)/.exec(security.stdout)?.[1]);
    // systemd's scale: 0 to 10, under 2 is "OK".
    expect(exposure).toBeLessThan(2);
    for (const line of [
      'DynamicUser=yes',
      'StateDirectory=foxbell',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'PrivateTmp=yes',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
    // The admin key is a credential, never on the command line.
    expect(text).toContain('LoadCredential=admin-key:/etc/foxbell/admin-key');
    expect(text).not.toMatch(/--admin-key/);
  });

  it("starts foxbell-server with the unit's environment: its data directory, address and the admin key from the credential", async () => {
    const { text } = await unitHere(await tempDir());
    const credentials = await tempDir();
    await writeFile(path.join(credentials, 'admin-key'), `${ADMIN}\n`, { mode: 0o600 });
    const data = path.join(await tempDir(), 'foxbell');
    // What systemd would set: the Environment= lines, %d being the credentials' directory; the
    // state directory is this test's, and the port a free one (the test's --port 0 wins).
    const env: Record<string, string> = {};
    for (const [, name, value] of text.matchAll(/^Environment=(\w+)=(.*)$/gm)) {
      env[name as string] = (value as string).replace('%d', credentials);
    }
    expect(env).toEqual({
      FOXBELL_DATA: '/var/lib/foxbell',
      FOXBELL_HOST: '127.0.0.1',
      FOXBELL_PORT: '8787',
      FOXBELL_ADMIN_KEY_FILE: path.join(credentials, 'admin-key'),
    });
    const server = await startProcess([], { ...env, FOXBELL_DATA: data });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    expect(account.status, account.text).toBe(201);
  });
});
