import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cleanUpAfterTest } from '@foxbell/test-support';
import { LocalPushService } from '@foxbell/test-support/web-push-service';
import { describe, expect, it } from 'vitest';
import { send } from '../../helpers.js';
import { ADMIN, runToExit, startProcess, tempDir } from '../../processes.js';

/**
 * `--web-push-ca FILE`: a push service behind a private CA (a self-hosted one, such as ntfy
 * serving UnifiedPush) trusted by the real server process, without NODE_EXTRA_CA_CERTS, and
 * besides the CAs Node trusts by default.
 */

async function pushService(): Promise<{ push: LocalPushService; server: { url: string } }> {
  const server = { url: '' };
  const push = await LocalPushService.start({
    vapidKey: async () => (await send(server.url, 'GET', '/v1/web-push/key')).body.public_key,
  });
  cleanUpAfterTest(() => push.close());
  return { push, server };
}

/** A foxbell-server whose allowlist names `services`, with an account, a token and one device at each. */
async function serverPushingTo(
  services: { push: LocalPushService; server: { url: string } }[],
  extra: string[],
  env: Record<string, string> = {},
) {
  const server = await startProcess(
    [
      ...['--data', await tempDir(), '--log-level', 'warn'],
      ...['--web-push-subject', 'mailto:ops@example.com'],
      ...['--web-push-hosts', services.map(({ push }) => push.host).join(',')],
      ...extra,
    ],
    { FOXBELL_ADMIN_KEY: ADMIN, ...env },
  );
  for (const service of services) service.server.url = server.url;
  const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
  for (const [index, { push }] of services.entries()) {
    const device = await send(server.url, 'POST', '/v1/devices', {
      token: account.body.key,
      json: { name: `phone ${index + 1}`, platform: 'ios', web_push: push.subscribe() },
    });
    expect(device.status, device.text).toBe(201);
  }
  const token = await send(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
  const sent = await send(server.url, 'POST', '/v1/notifications', {
    token: token.body.token,
    json: { message: 'through a private CA' },
  });
  expect(sent.status, sent.text).toBe(202);
  const states = async () =>
    (
      await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, { token: token.body.token })
    ).body.destinations
      .map((destination: { state: string }) => destination.state)
      .sort();
  return { server, states };
}

async function caFile(pem: string): Promise<string> {
  const file = path.join(await tempDir(), 'push-ca.pem');
  await writeFile(file, pem);
  return file;
}

describe('--web-push-ca', () => {
  it('without it, a push service behind a private CA is not trusted: the server hangs up in the handshake, and nothing reaches it', async () => {
    const service = await pushService();
    const { states } = await serverPushingTo([service], []);
    await service.push.waitForFailedHandshakes(1);
    expect(service.push.received).toEqual([]);
    expect(await states()).not.toContain('accepted');
  });

  it('with it, the push service is trusted and the push delivered, decrypted with the subscription', async () => {
    const service = await pushService();
    const { states } = await serverPushingTo([service], ['--web-push-ca', await caFile(service.push.ca)]);
    await service.push.waitFor(1);
    expect(service.push.received).toMatchObject([
      { status: 201, payload: { notification: { body: 'through a private CA' } } },
    ]);
    expect(service.push.failedHandshakes).toEqual([]);
    await expect.poll(states).toEqual(['accepted']);
  });

  it('keeps what Node trusts by default: a CA from NODE_EXTRA_CA_CERTS is trusted beside it', async () => {
    const mine = await pushService();
    const extra = await pushService();
    const { states } = await serverPushingTo(
      [mine, extra],
      [],
      // FOXBELL_WEB_PUSH_CA, the setting's variable, and Node's own variable for the other CA.
      { FOXBELL_WEB_PUSH_CA: await caFile(mine.push.ca), NODE_EXTRA_CA_CERTS: await caFile(extra.push.ca) },
    );
    await Promise.all([mine.push.waitFor(1), extra.push.waitFor(1)]);
    expect([...mine.push.failedHandshakes, ...extra.push.failedHandshakes]).toEqual([]);
    await expect.poll(states).toEqual(['accepted', 'accepted']);
  });

  it('stops the server at start with exit 2 when the file cannot be read or holds no certificate', async () => {
    const missing = path.join(await tempDir(), 'missing.pem');
    expect(await runToExit(['--web-push-ca', missing])).toEqual({
      code: 2,
      stderr: `foxbell-server: --web-push-ca (FOXBELL_WEB_PUSH_CA): cannot read ${missing}: ENOENT\nfoxbell-server: \`foxbell-server --help\` lists every setting\n`,
    });
    const notPem = await caFile('not a certificate\n');
    expect(await runToExit([], { FOXBELL_WEB_PUSH_CA: notPem })).toEqual({
      code: 2,
      stderr: `foxbell-server: --web-push-ca (FOXBELL_WEB_PUSH_CA): ${notPem} holds no PEM certificate\nfoxbell-server: \`foxbell-server --help\` lists every setting\n`,
    });
  });
});
