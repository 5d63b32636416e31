import { localCertificate } from '@foxbell/server/simulator';
import {
  ADMIN,
  EXTRA_NODES,
  runScript,
  startServerWithToken,
  startTinyproxy,
  startTlsProcess,
  tempDir,
} from '@foxbell/test-support';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { NOTIFY_BIN } from './helpers.js';

/**
 * `notify` behind a corporate proxy, on every Node it supports (this run's and CI's 22 and 24):
 * HTTP_PROXY for an http:// service, https_proxy (lower case) for an https:// one through CONNECT
 * with the company's CA from NODE_EXTRA_CA_CERTS, and NO_PROXY going around the proxy.
 */
const NODES: [string, string][] = [
  ['this run', process.execPath],
  ...EXTRA_NODES.map((node): [string, string] => [node, node]),
];

/** A foxbell-server on HTTPS, with a certificate of its own CA, and a send token made over it. */
async function httpsServer() {
  const certificate = await localCertificate('foxbell proxy test');
  const { server, files } = await startTlsProcess(await tempDir(), certificate);
  const baseUrl = `https://localhost:${new URL(server.url).port}`;
  const trusting = new Agent({ connect: { ca: certificate.cert } });
  const call = async (route: string, credential: string, body: object) =>
    (await (
      await undiciFetch(`${baseUrl}${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        dispatcher: trusting,
      })
    ).json()) as Record<string, string>;
  const account = await call('/v1/accounts', ADMIN, {});
  await call('/v1/devices', account.key as string, {
    name: 'Phone',
    platform: 'ios',
    push_token: 'ab'.repeat(32),
  });
  const token = (await call('/v1/tokens', account.key as string, {})).token as string;
  await trusting.close();
  return { baseUrl, token, ca: files.ca, host: new URL(baseUrl).host };
}

describe('notify behind a forward proxy', () => {
  it.each(NODES)(
    'goes through HTTP_PROXY to an http:// service, and NO_PROXY goes around it (Node at %s)',
    async (_name, node) => {
      const { server, token } = await startServerWithToken();
      const proxy = await startTinyproxy();
      const host = `localhost:${new URL(server.url).port}`;
      const env = { NOTIFY_BASE_URL: `http://${host}`, NOTIFY_TOKEN: token, HTTP_PROXY: proxy.url };
      const sent = await runScript(NOTIFY_BIN, ['send', 'via the proxy', '--quiet'], env, undefined, node);
      expect([sent.code, sent.stderr]).toEqual([0, '']);
      expect(sent.stdout).toMatch(/^ntf_\w+\n$/);
      // undici tunnels plain HTTP with CONNECT as well; a proxy may forward it by its URL instead.
      expect(await proxy.log()).toMatch(
        new RegExp(
          `Request \\(file descriptor \\d+\\): (POST http://${host}/v1/notifications|CONNECT ${host}) HTTP/1\\.1`,
        ),
      );
      expect(await proxy.log()).not.toContain(token);

      const before = (await proxy.log()).length;
      const around = await runScript(
        NOTIFY_BIN,
        ['send', 'around it', '--quiet'],
        { ...env, NO_PROXY: 'localhost' },
        undefined,
        node,
      );
      expect(around.code).toBe(0);
      expect((await proxy.log()).slice(before)).not.toContain(host);
    },
  );

  it.each(NODES)(
    'tunnels to an https:// service through https_proxy, trusting NODE_EXTRA_CA_CERTS (Node at %s)',
    async (_name, node) => {
      const service = await httpsServer();
      const proxy = await startTinyproxy();
      const env = { NOTIFY_BASE_URL: service.baseUrl, NOTIFY_TOKEN: service.token, https_proxy: proxy.url };
      const trusted = await runScript(
        NOTIFY_BIN,
        ['send', 'through the tunnel', '--json'],
        { ...env, NODE_EXTRA_CA_CERTS: service.ca },
        undefined,
        node,
      );
      expect(trusted.stderr).toBe('');
      expect([trusted.code, JSON.parse(trusted.stdout).status]).toEqual([0, 'accepted']);
      expect(await proxy.log()).toContain(`CONNECT ${service.host} HTTP/1.1`);

      // Without the CA, the tunnel opens and TLS rejects the certificate: said as such.
      const untrusted = await runScript(
        NOTIFY_BIN,
        ['send', 'refused', '--retries', '0'],
        env,
        undefined,
        node,
      );
      expect(untrusted.code).toBe(5);
      expect(untrusted.stderr).toMatch(
        new RegExp(
          `^error: Could not reach ${service.baseUrl}: the TLS handshake failed \\(its certificate was not trusted\\) \\(\\w+\\)\\n  code: connection_error\\n  next: Its certificate is not signed by a CA this machine trusts: point NODE_EXTRA_CA_CERTS at the CA's PEM file\\n$`,
        ),
      );
    },
  );
});
