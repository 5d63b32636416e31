import { describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  createAccount,
  createToken,
  expectError,
  FOREIGN_TOKEN,
  serverForAll,
  startServer,
} from '../helpers.js';

const send = { message: 'hi' };

// One server for the tests that make an account of their own and leave the clock. Those that count
// unknown credentials per client address, or move the clock, start their own; the few unknown
// credentials the others present stay far below that limit (30 a minute).
const shared = serverForAll();

describe('authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a token of the wrong shape', 'fox_send_short'],
    ['a well-formed token this service never issued', FOREIGN_TOKEN],
    ['a token with a wrong prefix', `fox_sand_${'a'.repeat(32)}`],
  ])('responds with 401 unauthorized for %s', async (_name, token) => {
    const server = shared();
    const reply = await server.request('POST', '/v1/notifications', {
      json: send,
      ...(token === undefined ? {} : { token }),
    });
    expectError(reply, 401, 'unauthorized');
    // The token is not known, so no rate-limit headers.
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('slows a client address that presents 30 unknown credentials in a minute: 429 until the minute ends, for any credential', async () => {
    // Behind a trusted proxy, so that X-Forwarded-For names each client address.
    const server = await startServer({ trustProxy: ['127.0.0.1'] });
    const account = await createAccount(server);
    const from = (address: string, token: string, path = '/v1/notifications') =>
      server.request(path === '/v1/notifications' ? 'POST' : 'GET', path, {
        token,
        headers: { 'x-forwarded-for': address },
        ...(path === '/v1/notifications' ? { json: send } : {}),
      });
    server.clock.advance(10_000);
    for (let i = 0; i < 30; i += 1)
      expectError(await from('203.0.113.7', FOREIGN_TOKEN), 401, 'unauthorized');
    // Known but no longer valid credentials, and none at all, are not guesses: they do not count.
    const limited = await from('203.0.113.7', FOREIGN_TOKEN);
    const body = expectError(limited, 429, 'rate_limited');
    expect(body.error.details).toEqual({ scope: 'failed_credentials', limit: 30 });
    expect(limited.headers.get('retry-after')).toBe('60');
    // A good credential from that address waits too; from another address it is served.
    expectError(await from('203.0.113.7', account.token), 429, 'rate_limited');
    expectError(await from('203.0.113.7', account.key, '/v1/devices'), 429, 'rate_limited');
    expect((await from('198.51.100.2', account.token)).status).toBe(202);
    server.clock.advance(59_000);
    expect((await from('203.0.113.7', account.token)).headers.get('retry-after')).toBe('1');
    server.clock.advance(1_000);
    expect((await from('203.0.113.7', account.token)).status).toBe(202);
  });

  it('counts only unknown credentials toward that limit, not revoked ones or none', async () => {
    const server = await startServer({ trustProxy: ['127.0.0.1'] });
    const account = await createAccount(server);
    const revoked = await createToken(server, account.key);
    // Tokens are listed oldest first: the one just made is the last.
    const tokens = (await server.request('GET', '/v1/tokens', { token: account.key })).body.tokens as {
      id: string;
    }[];
    await server.request('DELETE', `/v1/tokens/${tokens.at(-1)?.id}`, { token: account.key });
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 40; i += 1) {
      expectError(
        await server.request('POST', '/v1/notifications', { json: send, headers }),
        401,
        'unauthorized',
      );
      expectError(
        await server.request('POST', '/v1/notifications', { json: send, headers, token: revoked }),
        401,
        'token_revoked',
      );
    }
    expect(
      (await server.request('POST', '/v1/notifications', { json: send, headers, token: account.token }))
        .status,
    ).toBe(202);
  });

  it('responds with 401 unauthorized for an Authorization header that is not Bearer', async () => {
    const server = shared();
    const { token } = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      json: send,
      headers: { authorization: `Basic ${token}` },
    });
    expectError(reply, 401, 'unauthorized');
  });

  it('responds with 401 token_revoked after the token is deleted', async () => {
    const server = shared();
    const account = await createAccount(server);
    const tokens = await server.request('GET', '/v1/tokens', { token: account.key });
    const [{ id }] = tokens.body.tokens;
    expect((await server.request('DELETE', `/v1/tokens/${id}`, { token: account.key })).status).toBe(204);
    expectError(
      await server.request('POST', '/v1/notifications', { token: account.token, json: send }),
      401,
      'token_revoked',
    );
    expectError(await server.request('GET', '/v1/scenes', { token: account.token }), 401, 'token_revoked');
  });

  it('responds with 401 token_expired from the expiry instant on', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const expiresAt = new Date(server.clock.now() + 60_000).toISOString();
    const token = await createToken(server, account.key, { expires_at: expiresAt });
    server.clock.advance(59_999);
    expect((await server.request('POST', '/v1/notifications', { token, json: send })).status).toBe(202);
    server.clock.advance(1);
    expectError(
      await server.request('POST', '/v1/notifications', { token, json: send }),
      401,
      'token_expired',
    );
  });

  it('responds with 401 account_deleted for the key and tokens of a deleted account', async () => {
    const server = shared();
    const account = await createAccount(server);
    expect((await server.request('DELETE', '/v1/account', { token: account.key })).status).toBe(204);
    expectError(
      await server.request('POST', '/v1/notifications', { token: account.token, json: send }),
      401,
      'account_deleted',
    );
    expectError(await server.request('GET', '/v1/devices', { token: account.key }), 401, 'account_deleted');
  });

  it('responds with 401 key_rotated for an account key replaced by a rotation', async () => {
    const server = shared();
    const account = await createAccount(server);
    const rotated = await server.request('POST', '/v1/account/key', { token: account.key, json: {} });
    expect(rotated.status).toBe(201);
    expectError(await server.request('GET', '/v1/tokens', { token: account.key }), 401, 'key_rotated');
    expect((await server.request('GET', '/v1/tokens', { token: rotated.body.key })).status).toBe(200);
  });

  describe('a valid credential on a route it does not belong to is 403 forbidden', () => {
    it.each([
      ['an account key', 'send', 'POST', '/v1/notifications'],
      ['the admin key', 'send', 'POST', '/v1/notifications'],
      ['a send token', 'management', 'GET', '/v1/tokens'],
      ['a send token', 'management', 'POST', '/v1/devices'],
      ['a send token', 'admin', 'POST', '/v1/accounts'],
      ['an account key', 'admin', 'POST', '/v1/admin/pause'],
      ['the admin key', 'management', 'GET', '/v1/devices'],
    ])('%s on a %s route (%s %s)', async (who, _kind, method, path) => {
      const server = shared();
      const account = await createAccount(server);
      const token =
        who === 'an account key' ? account.key : who === 'the admin key' ? ADMIN_KEY : account.token;
      const json = method === 'GET' ? {} : { json: {} };
      expectError(await server.request(method, path, { token, ...json }), 403, 'forbidden');
    });
  });

  it('lets any valid credential read the scene catalog', async () => {
    const server = shared();
    const account = await createAccount(server);
    for (const token of [account.token, account.key, ADMIN_KEY]) {
      expect((await server.request('GET', '/v1/scenes', { token })).status).toBe(200);
    }
    expectError(await server.request('GET', '/v1/scenes'), 401, 'unauthorized');
  });
});

describe('token options', () => {
  it('rejects a scene outside the allowlist with 403 scene_not_allowed, the default notice included', async () => {
    const server = shared();
    const account = await createAccount(server);
    const token = await createToken(server, account.key, { scenes: ['rocket'] });
    expect(
      (await server.request('POST', '/v1/notifications', { token, json: { ...send, scene: 'rocket' } }))
        .status,
    ).toBe(202);
    expectError(
      await server.request('POST', '/v1/notifications', { token, json: { ...send, scene: 'campfire' } }),
      403,
      'scene_not_allowed',
      'scene',
    );
    expectError(
      await server.request('POST', '/v1/notifications', { token, json: send }),
      403,
      'scene_not_allowed',
      'scene',
    );
  });

  it('rejects url, url_title and image from a token without URL permission with 422 urls_not_allowed', async () => {
    const server = shared();
    const account = await createAccount(server);
    const agent = await createToken(server, account.key, { kind: 'agent' });
    const post = (json: object) =>
      server.request('POST', '/v1/notifications', { token: agent, json: { ...send, ...json } });
    expectError(await post({ url: 'https://example.com' }), 422, 'urls_not_allowed', 'url');
    expectError(await post({ image: 'https://example.com/a.png' }), 422, 'urls_not_allowed', 'image');
    expect((await post({})).status).toBe(202);
    const allowedAgent = await createToken(server, account.key, { kind: 'agent', allow_urls: true });
    const reply = await server.request('POST', '/v1/notifications', {
      token: allowedAgent,
      json: { ...send, url: 'https://example.com' },
    });
    expect(reply.status).toBe(202);
  });

  it("applies the token's default target when a send names none", async () => {
    const server = shared();
    const account = await createAccount(server);
    const token = await createToken(server, account.key, { default_target: 'watch' });
    const plain = await server.request('POST', '/v1/notifications', { token, json: send });
    const named = await server.request('POST', '/v1/notifications', {
      token,
      json: { ...send, target: 'iphone' },
    });
    expect((await server.store.getNotification(plain.body.id))?.notification.target).toBe('watch');
    expect((await server.store.getNotification(named.body.id))?.notification.target).toBe('iphone');
  });

  it('shows each notification with the name of its sender', async () => {
    const server = shared();
    const account = await createAccount(server);
    const token = await createToken(server, account.key, { name: 'Nightly build' });
    const reply = await server.request('POST', '/v1/notifications', { token, json: send });
    const inbox = await server.request('GET', '/v1/inbox', { token: account.key });
    expect(inbox.body.items[0]).toMatchObject({ id: reply.body.id, sender: 'Nightly build', message: 'hi' });
  });
});

describe('response headers', () => {
  it('marks every response no-store and nosniff: accepted, rejected, read, and not found', async () => {
    const server = shared();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', { token: account.token, json: send });
    const replies = [
      sent,
      await server.request('POST', '/v1/notifications', { json: send }),
      await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token: account.token }),
      await server.request('GET', '/v1/devices', { token: account.key }),
      await server.request('GET', '/v1/nothing'),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([202, 401, 200, 200, 404]);
    for (const reply of replies) {
      expect(reply.headers.get('cache-control'), reply.text).toBe('no-store');
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });
});
