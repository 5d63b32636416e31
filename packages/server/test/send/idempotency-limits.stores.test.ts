import { describe, expect, it } from 'vitest';
import { createAccount, createToken, expectError, serverForAll, startServer } from '../helpers.js';

const send = { message: 'hi' };

// One server for the tests that send with an account of their own and leave the clock. Those that
// move it, or pause every send of the server, start their own.
const shared = serverForAll();

describe('idempotency', () => {
  it('returns the original 202 and id for a byte-identical retry, and stores one notification', async () => {
    const server = shared();
    const account = await createAccount(server);
    const post = () =>
      server.request('POST', '/v1/notifications', {
        token: account.token,
        json: send,
        headers: { 'idempotency-key': 'build-42' },
      });
    const first = await post();
    const second = await post();
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.id).toBe(first.body.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.request_id).toBe(second.headers.get('x-request-id'));
    // A replay does not count again.
    expect(second.headers.get('x-ratelimit-remaining')).toBe('9999');
    const inbox = await server.request('GET', '/v1/inbox', { token: account.key });
    expect(inbox.body.items).toHaveLength(1);
  });

  it('responds with 409 idempotency_conflict for a different request with the same key', async () => {
    const server = shared();
    const account = await createAccount(server);
    const headers = { 'idempotency-key': 'k1' };
    await server.request('POST', '/v1/notifications', { token: account.token, json: send, headers });
    expectError(
      await server.request('POST', '/v1/notifications', {
        token: account.token,
        json: { message: 'ho' },
        headers,
      }),
      409,
      'idempotency_conflict',
      'Idempotency-Key',
    );
    // A spelling of the same request with a default added is a different request too (spec, rule 3).
    expectError(
      await server.request('POST', '/v1/notifications', {
        token: account.token,
        json: { ...send, scene: 'notice' },
        headers,
      }),
      409,
      'idempotency_conflict',
      'Idempotency-Key',
    );
  });

  it('scopes keys to the token', async () => {
    const server = shared();
    const account = await createAccount(server);
    const other = await createToken(server, account.key);
    const headers = { 'idempotency-key': 'shared' };
    const a = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: send,
      headers,
    });
    const b = await server.request('POST', '/v1/notifications', { token: other, json: send, headers });
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('forgets a key after 24 hours', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const headers = { 'idempotency-key': 'daily' };
    const post = () =>
      server.request('POST', '/v1/notifications', { token: account.token, json: send, headers });
    const first = await post();
    server.clock.advance(24 * 3_600_000 - 1);
    expect((await post()).body.id).toBe(first.body.id);
    server.clock.advance(1);
    expect((await post()).body.id).not.toBe(first.body.id);
  });

  it('creates one notification for concurrent requests with one key', async () => {
    const server = shared();
    const account = await createAccount(server);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.request('POST', '/v1/notifications', {
          token: account.token,
          json: send,
          headers: { 'idempotency-key': 'race' },
        }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(202));
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(1);
    const inbox = await server.request('GET', '/v1/inbox', { token: account.key });
    expect(inbox.body.items).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
  ])('rejects a malformed key (%s) with 400 invalid_field Idempotency-Key', async (_name, key) => {
    const server = shared();
    const account = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: send,
      headers: { 'idempotency-key': Buffer.from(key).toString('latin1') },
    });
    expectError(reply, 400, 'invalid_field', 'Idempotency-Key');
  });

  it('takes a 255-character key', async () => {
    const server = shared();
    const account = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: send,
      headers: { 'idempotency-key': 'k'.repeat(255) },
    });
    expect(reply.status).toBe(202);
  });
});

describe('rate limits and the monthly quota', () => {
  it('admits 30 sends a minute per token, then 429 rate_limited with the seconds until the next', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const post = () => server.request('POST', '/v1/notifications', { token: account.token, json: send });
    for (let i = 0; i < 30; i++) {
      expect((await post()).status).toBe(202);
      server.clock.advance(1000);
    }
    // The first send was 30 s ago: the window frees up in 30 s.
    const limited = await post();
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.body.error.details).toEqual({ scope: 'token', limit: 30 });
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('9970');
    server.clock.advance(29_999);
    expect((await post()).headers.get('retry-after')).toBe('1');
    server.clock.advance(1);
    expect((await post()).status).toBe(202);
  });

  it('admits an idempotent replay while the token is rate limited', async () => {
    const server = await startServer({ limits: { perTokenPerMinute: 2 } });
    const account = await createAccount(server);
    const headers = { 'idempotency-key': 'k' };
    const first = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: send,
      headers,
    });
    await server.request('POST', '/v1/notifications', { token: account.token, json: send });
    expectError(
      await server.request('POST', '/v1/notifications', { token: account.token, json: send }),
      429,
      'rate_limited',
    );
    const replay = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: send,
      headers,
    });
    expect(replay.status).toBe(202);
    expect(replay.body.id).toBe(first.body.id);
  });

  it('admits 60 sends a minute per account across its tokens', async () => {
    const server = shared();
    const account = await createAccount(server);
    const tokens = [
      account.token,
      await createToken(server, account.key),
      await createToken(server, account.key),
    ];
    for (let i = 0; i < 60; i++) {
      const reply = await server.request('POST', '/v1/notifications', {
        token: tokens[i % 3] as string,
        json: send,
      });
      expect(reply.status).toBe(202);
    }
    const limited = await server.request('POST', '/v1/notifications', { token: account.token, json: send });
    expectError(limited, 429, 'rate_limited');
    expect(limited.body.error.details.scope).toBe('account');
    expect(limited.headers.get('retry-after')).toBe('60');
  });

  it('does not count rejected sends', async () => {
    const server = shared();
    const account = await createAccount(server);
    await server.request('POST', '/v1/notifications', { token: account.token, json: { message: '' } });
    const reply = await server.request('POST', '/v1/notifications', { token: account.token, json: send });
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('9999');
  });

  it('rejects past the monthly quota with 429 quota_exceeded, and renews at the UTC month', async () => {
    const server = await startServer({ limits: { perAccountPerMonth: 3 } });
    const account = await createAccount(server);
    server.clock.set('2026-11-30T23:59:00.000Z');
    const post = () => server.request('POST', '/v1/notifications', { token: account.token, json: send });
    for (const remaining of ['2', '1', '0']) {
      expect((await post()).headers.get('x-ratelimit-remaining')).toBe(remaining);
    }
    const refused = await post();
    expectError(refused, 429, 'quota_exceeded');
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(
      String(Date.parse('2026-12-01T00:00:00.000Z') / 1000),
    );
    server.clock.set('2026-12-01T00:00:00.000Z');
    const renewed = await post();
    expect(renewed.status).toBe(202);
    expect(renewed.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(renewed.headers.get('x-ratelimit-reset')).toBe(
      String(Date.parse('2027-01-01T00:00:00.000Z') / 1000),
    );
  });

  it('responds with 503 service_unavailable with Retry-After while an admin has paused sends', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const pause = await server.request('POST', '/v1/admin/pause', {
      token: 'test-admin-key-0123456789-abcdefghij',
      json: { paused: true, retry_after: 45 },
    });
    expect(pause.body).toEqual({ paused: true, retry_after: 45 });
    const refused = await server.request('GET', `/v1/send/${account.token}?message=hi`);
    expectError(refused, 503, 'service_unavailable');
    expect(refused.headers.get('retry-after')).toBe('45');
    await server.request('POST', '/v1/admin/pause', {
      token: 'test-admin-key-0123456789-abcdefghij',
      json: { paused: false },
    });
    expect(
      (await server.request('POST', '/v1/notifications', { token: account.token, json: send })).status,
    ).toBe(202);
  });
});
