import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { localCertificate } from '../../src/simulator/local-certificate.js';
import { send } from '../helpers.js';
import { ADMIN, freePort, httpsJson, startProcess, tempDir } from '../processes.js';

const DEPLOY_DOC = fileURLToPath(new URL('../../../../docs/deploy.md', import.meta.url));

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** The nginx configuration docs/deploy.md gives, as written there. */
async function documentedConfig(): Promise<string> {
  const doc = await readFile(DEPLOY_DOC, 'utf8');
  const block = /<!-- nginx-config -->\n```nginx\n([\s\S]*?)\n```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/deploy.md has no nginx configuration block');
  return block;
}

describe('behind nginx, from the configuration in docs/deploy.md', () => {
  it('serves sends, status and the URL-token endpoint over TLS, with every rule and no token in its log', async () => {
    const dir = await tempDir();
    const apis = await Promise.all(
      [0, 1].map(async (i) =>
        startProcess([
          ...['--data', path.join(dir, `data${i}`), '--admin-key', ADMIN, '--log-level', 'info'],
          ...['--trust-proxy', '127.0.0.1', '--no-workers'],
        ]),
      ),
    );
    const pems = await localCertificate('localhost');
    await writeFile(path.join(dir, 'cert.pem'), pems.cert);
    await writeFile(path.join(dir, 'key.pem'), pems.key);
    const port = await freePort();
    const [first, second] = apis.map((api) => new URL(api.url).port);
    // The documented file, with this test's ports, certificate and log file in place of the examples'.
    const site = (await documentedConfig())
      .replace('server 127.0.0.1:8787;', `server 127.0.0.1:${first};`)
      .replace('server 127.0.0.1:8788;', `server 127.0.0.1:${second};`)
      .replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`)
      .replace(/ssl_certificate +\S+;/, `ssl_certificate ${path.join(dir, 'cert.pem')};`)
      .replace(/ssl_certificate_key +\S+;/, `ssl_certificate_key ${path.join(dir, 'key.pem')};`)
      .replace('/var/log/nginx/foxbell.log', path.join(dir, 'access.log'));
    expect(site).toContain(`listen 127.0.0.1:${port} ssl;`);
    await writeFile(path.join(dir, 'foxbell.conf'), site);
    // What Debian's /etc/nginx/nginx.conf would be around it, in this test's folder.
    await writeFile(
      path.join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  include ${dir}/foxbell.conf;
}
`,
    );
    const nginx = spawn('nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let nginxErrors = '';
    nginx.stderr.on('data', (chunk) => {
      nginxErrors += chunk;
    });
    const exited = new Promise((resolve) => nginx.on('exit', resolve));
    stops.push(async () => {
      nginx.kill('SIGTERM');
      await exited;
    });

    // HTTPS that trusts the test's certificate, as a client with it in its store would.
    const through = (
      pathAndQuery: string,
      init: { method?: string; headers?: Record<string, string>; body?: string } = {},
    ) => httpsJson(`https://localhost:${port}${pathAndQuery}`, pems.cert, init);
    await expect
      .poll(async () => (await through('/healthz').catch(() => ({ status: 0 }))).status, { timeout: 10_000 })
      .toBe(200);
    expect(nginxErrors).toBe('');

    const account = await send(apis[0]?.url as string, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const token = (
      await send(apis[0]?.url as string, 'POST', '/v1/tokens', { token: account.body.key, json: {} })
    ).body.token as string;
    // The other API process knows the same account only on PostgreSQL; this test's are each on
    // their own SQLite, so the sends below ask until the proxy reaches the first.
    const untilFirst = async (
      make: () => Promise<{ status: number; headers: Headers; body: Record<string, unknown> }>,
    ) => {
      for (;;) {
        const reply = await make();
        if (reply.status !== 401) return reply;
      }
    };
    const sent = await untilFirst(() =>
      through('/v1/notifications', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-forwarded-for': '198.51.100.9',
        },
        body: JSON.stringify({ message: 'through nginx' }),
      }),
    );
    expect([sent.status, sent.body.status]).toEqual([202, 'accepted']);
    expect(sent.headers.get('x-request-id')).toBe(sent.body.request_id);
    const status = await untilFirst(() =>
      through(`/v1/notifications/${sent.body.id}/status`, { headers: { authorization: `Bearer ${token}` } }),
    );
    expect([status.status, status.body.id]).toEqual([200, sent.body.id]);
    const byUrl = await untilFirst(() => through(`/v1/send/${token}?message=by+URL`));
    expect(byUrl.status).toBe(202);
    // The 16 KB rule is Foxbell's own response, not nginx's.
    const long = await untilFirst(() => through(`/v1/send/${token}?message=${'a'.repeat(16_500)}`));
    expect([
      long.status,
      (long.body.error as { code?: string } | undefined)?.code,
      long.headers.get('x-request-id'),
    ]).toEqual([413, 'payload_too_large', long.body.request_id]);

    // nginx's log has no token; Foxbell's names the client nginx saw, not the one the client claimed.
    const accessLog = await readFile(path.join(dir, 'access.log'), 'utf8');
    expect(accessLog.split('\n').length).toBeGreaterThan(4);
    expect(accessLog).not.toContain(token);
    const logged = apis[0]?.stderr() ?? '';
    expect(logged).toMatch(/"path":"\/v1\/notifications","client":"127\.0\.0\.1"/);
    expect(logged).not.toContain('198.51.100.9');
  }, 60_000);
});
