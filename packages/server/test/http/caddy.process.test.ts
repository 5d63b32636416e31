import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN, freePort, httpsJson, startProcess, tempDir } from '../processes.js';
import { localCaReady, runShippedCaddy } from '../shipped-caddy.js';

describe('behind Caddy, from deploy/Caddyfile', () => {
  it('serves the API over HTTPS with a certificate of its own, logging no token', async () => {
    const dir = await tempDir();
    const server = await startProcess([
      ...['--data', path.join(dir, 'data'), '--admin-key', ADMIN, '--log-level', 'warn'],
      ...['--trust-proxy', '127.0.0.1'],
    ]);
    const [httpPort, httpsPort] = [await freePort(), await freePort()];
    // The site's name (localhost) makes Caddy issue from its local CA instead of a public one.
    const caddy = await runShippedCaddy({
      dir,
      globals: [`http_port ${httpPort}`, `https_port ${httpsPort}`],
      domain: 'localhost',
      upstreams: [new URL(server.url).host],
    });
    const base = `https://localhost:${httpsPort}`;
    const { root: ca } = await localCaReady(dir, base);

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
    expect(caddy.log()).not.toContain(token);
  }, 40_000);
});
