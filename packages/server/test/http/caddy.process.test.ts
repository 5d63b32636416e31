import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAfterTest } from '@foxbell/test-support';
import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN, freePort, httpsJson, startProcess, tempDir } from '../processes.js';

const CADDYFILE = fileURLToPath(new URL('../../../../deploy/Caddyfile', import.meta.url));

describe('behind Caddy, from deploy/Caddyfile', () => {
  it('serves the API over HTTPS with a certificate of its own, logging no token', async () => {
    const dir = await tempDir();
    const server = await startProcess([
      ...['--data', path.join(dir, 'data'), '--admin-key', ADMIN, '--log-level', 'warn'],
      ...['--trust-proxy', '127.0.0.1'],
    ]);
    const [httpPort, httpsPort] = [await freePort(), await freePort()];
    // The shipped file, after the global options a test needs: its own ports, no admin endpoint,
    // and its local CA kept out of this machine's trust store. The site's name (localhost) makes
    // Caddy issue from that local CA instead of a public one.
    const caddyfile = path.join(dir, 'Caddyfile');
    await writeFile(
      caddyfile,
      `{\n\tadmin off\n\tskip_install_trust\n\thttp_port ${httpPort}\n\thttps_port ${httpsPort}\n}\n\n${await readFile(CADDYFILE, 'utf8')}`,
    );
    const caddy = killAfterTest(
      spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          XDG_DATA_HOME: path.join(dir, 'xdg-data'),
          XDG_CONFIG_HOME: path.join(dir, 'xdg-config'),
          FOXBELL_DOMAIN: 'localhost',
          FOXBELL_UPSTREAM: new URL(server.url).host,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let log = '';
    caddy.stdout.on('data', (chunk) => {
      log += chunk;
    });
    caddy.stderr.on('data', (chunk) => {
      log += chunk;
    });
    const root = path.join(dir, 'xdg-data/caddy/pki/authorities/local/root.crt');
    const base = `https://localhost:${httpsPort}`;
    let ca = '';
    await expect
      .poll(
        async () => {
          ca = ca || (await readFile(root, 'utf8').catch(() => ''));
          return ca ? (await httpsJson(`${base}/healthz`, ca).catch(() => ({ status: 0 }))).status : 0;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe(200);

    const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const token = (await send(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body
      .token;
    const sent = await httpsJson(`${base}/v1/notifications`, ca, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'through Caddy' }),
    });
    expect(sent.status).toBe(202);
    expect(sent.headers.get('x-request-id')).toBe(sent.body.request_id);
    const byUrl = await httpsJson(`${base}/v1/send/${token}?message=by+URL`, ca);
    expect(byUrl.status).toBe(202);
    const status = await httpsJson(`${base}/v1/notifications/${sent.body.id}/status`, ca, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect([status.status, status.body.id]).toEqual([200, sent.body.id]);
    expect(log).not.toContain(token);
  }, 40_000);
});
