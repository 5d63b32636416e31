import { describe, expect, it } from 'vitest';
import { PURGE_BATCH } from '../../src/kernel/retention.js';
import {
  ADMIN_KEY,
  createAccount,
  createToken,
  expectError,
  pushToken,
  routeQueued,
  serverForAll,
  startServer,
} from '../helpers.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// One server for the tests that make an account of their own and leave the clock; those that move
// it (expiries, windows, retention) start their own.
const shared = serverForAll();

describe('accounts and keys', () => {
  it('creates an account with the admin key', async () => {
    const server = shared();
    const reply = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: { name: 'Ana' } });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^acct_[A-Za-z0-9]{22}$/),
      key: expect.stringMatching(/^fox_acct_[A-Za-z0-9]{32}$/),
      generation: 1,
    });
  });

  it('rejects unknown fields and wrong types in management bodies', async () => {
    const server = shared();
    expectError(
      await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: { nme: 'x' } }),
      400,
      'invalid_field',
      'nme',
    );
    expectError(
      await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: { name: 5 } }),
      400,
      'invalid_field',
      'name',
    );
    expectError(
      await server.request('POST', '/v1/accounts', {
        token: ADMIN_KEY,
        body: 'name=x',
        contentType: 'text/plain',
      }),
      415,
      'unsupported_media_type',
    );
  });

  it('rotates the key as compare-and-set on its generation', async () => {
    const server = shared();
    const account = await createAccount(server);
    const rotated = await server.request('POST', '/v1/account/key', {
      token: account.key,
      json: { generation: 1 },
    });
    expect(rotated.status).toBe(201);
    expect(rotated.body.generation).toBe(2);
    const stale = await server.request('POST', '/v1/account/key', {
      token: rotated.body.key,
      json: { generation: 1 },
    });
    expectError(stale, 409, 'rotation_conflict', 'generation');
    expect(stale.body.error.details).toEqual({ generation: 2 });
  });
});

describe('devices', () => {
  it('registers, lists, renames and removes devices', async () => {
    const server = shared();
    const account = await createAccount(server);
    const created = await server.request('POST', '/v1/devices', {
      token: account.key,
      json: { name: 'Desk iPad', platform: 'ios', push_token: pushToken(), in_auto: false },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^dev_/),
      name: 'Desk iPad',
      platform: 'ios',
      in_auto: false,
      active: true,
      created_at: expect.stringMatching(TIMESTAMP),
      last_seen_at: null,
      stale: false,
    });
    const renamed = await server.request('PATCH', `/v1/devices/${created.body.id}`, {
      token: account.key,
      json: { name: 'Kitchen iPad' },
    });
    expect(renamed.body).toMatchObject({ name: 'Kitchen iPad', in_auto: false });
    const asToken = await server.request('GET', '/v1/devices', { token: account.token });
    expect(asToken.body).toEqual({
      devices: [
        { name: "Ana's iPhone", platform: 'ios' },
        { name: "Ana's Watch", platform: 'watchos' },
        { name: "Ana's Vision Pro", platform: 'visionos' },
        { name: 'Kitchen iPad', platform: 'ios' },
      ],
    });
    expect(
      (await server.request('DELETE', `/v1/devices/${created.body.id}`, { token: account.key })).status,
    ).toBe(204);
    const after = await server.request('GET', '/v1/devices', { token: account.token });
    expect(after.body.devices).toHaveLength(3);
    const full = await server.request('GET', '/v1/devices', { token: account.key });
    expect(full.body.devices.at(-1)).toMatchObject({
      name: 'Kitchen iPad',
      active: false,
      inactive_reason: 'removed',
    });
    // An active device says no reason at all.
    expect(
      full.body.devices.filter((device: Record<string, unknown>) => 'inactive_reason' in device),
    ).toEqual([full.body.devices.at(-1)]);
    expectError(
      await server.request('DELETE', `/v1/devices/${created.body.id}`, { token: account.key }),
      404,
      'not_found',
      'id',
    );
  });

  it('rejects a 21st device with 409 limit_reached and a registered push token with 409 device_exists', async () => {
    const server = shared();
    const account = await createAccount(server);
    const register = (token: string) =>
      server.request('POST', '/v1/devices', {
        token: account.key,
        json: { name: 'd', platform: 'watchos', push_token: token },
      });
    const taken = pushToken();
    expect((await register(taken)).status).toBe(201);
    expectError(await register(taken), 409, 'device_exists', 'push_token');
    for (let i = 5; i <= 20; i++) expect((await register(pushToken())).status).toBe(201);
    const refused = await register(pushToken());
    expectError(refused, 409, 'limit_reached');
    expect(refused.body.error.details).toEqual({ limit: 'devices', max: 20 });
  });

  it('moves a push token another account registered, with the same response as for a new one: nothing of that account leaks', async () => {
    const server = shared();
    const first = await createAccount(server);
    const second = await createAccount(server);
    const phone = first.devices[0] as (typeof first.devices)[number];
    // A send to the first account's phone, not yet delivered, when the phone moves.
    const waiting = await server.request('POST', '/v1/notifications', {
      token: first.token,
      json: { message: 'before the move', target: phone.name },
    });
    expect(waiting.status).toBe(202);

    const register = (token: string) =>
      server.request('POST', '/v1/devices', {
        token: second.key,
        json: { name: 'My phone', platform: 'ios', push_token: token },
      });
    const moved = await register(phone.push_token);
    const fresh = await register(pushToken());
    // The same response, field for field, as for a push token no account had.
    expect(moved.status).toBe(201);
    expect(Object.keys(moved.body).sort()).toEqual(Object.keys(fresh.body).sort());
    expect(moved.text).not.toContain(first.id);
    // The first account's phone is removed; its other devices stay.
    const list = await server.request('GET', '/v1/devices', { token: first.key });
    expect(
      list.body.devices.map((d: Record<string, unknown>) => [d.name, d.active, d.inactive_reason]),
    ).toEqual([
      [phone.name, false, 'moved'],
      [first.devices[1]?.name, true, undefined],
      [first.devices[2]?.name, true, undefined],
    ]);
    // The second account now has it; registering it there again is its own duplicate.
    expectError(await register(phone.push_token), 409, 'device_exists', 'push_token');
    // And it can move back.
    const back = await server.request('POST', '/v1/devices', {
      token: first.key,
      json: { name: phone.name, platform: 'ios', push_token: phone.push_token },
    });
    expect(back.status).toBe(201);
    const secondList = await server.request('GET', '/v1/devices', { token: second.key });
    expect(secondList.body.devices.find((d: { id: string }) => d.id === moved.body.id)).toMatchObject({
      active: false,
      inactive_reason: 'moved',
    });
  });

  it.each([
    [{ name: 'x', platform: 'android', push_token: 'a'.repeat(64) }, 'invalid_field', 'platform'],
    [{ name: 'x', platform: 'ios', push_token: 'a'.repeat(63) }, 'invalid_field', 'push_token'],
    [{ name: '', platform: 'ios', push_token: 'a'.repeat(64) }, 'invalid_field', 'name'],
    [{ name: 'n'.repeat(65), platform: 'ios', push_token: 'a'.repeat(64) }, 'invalid_field', 'name'],
    [{ platform: 'ios', push_token: 'a'.repeat(64) }, 'missing_field', 'name'],
  ])('rejects device %j', async (json, code, field) => {
    const server = shared();
    const account = await createAccount(server);
    expectError(await server.request('POST', '/v1/devices', { token: account.key, json }), 400, code, field);
  });

  it.each([
    ['a\u0007b', 'name must not contain control characters other than tab and newline'],
    ['\ud800x', 'name must be valid Unicode (it has a lone surrogate)'],
    [`${'é'.repeat(32)}e`, 'name must be 1 to 64 bytes'],
  ])('rejects the device name %j by the text rule of sends: %s', async (name, message) => {
    const server = shared();
    const account = await createAccount(server);
    const reply = await server.request('POST', '/v1/devices', {
      token: account.key,
      json: { name, platform: 'ios', push_token: 'a'.repeat(64) },
    });
    expectError(reply, 400, 'invalid_field', 'name');
    expect(reply.body.error.message).toBe(message);
  });

  it('takes a device name of exactly 64 bytes, with a tab and a newline in it', async () => {
    const server = shared();
    const account = await createAccount(server);
    const name = `${'é'.repeat(31)}\t\n`;
    const reply = await server.request('POST', '/v1/devices', {
      token: account.key,
      json: { name, platform: 'ios', push_token: 'b'.repeat(64) },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.name).toBe(name);
  });

  it('responds with 403 forbidden to a token whose device_names scope is off', async () => {
    const server = shared();
    const account = await createAccount(server);
    const token = await createToken(server, account.key, { device_names: false });
    expectError(await server.request('GET', '/v1/devices', { token }), 403, 'forbidden');
  });
});

describe('tokens', () => {
  it('creates a token, shows its secret once, and lists it without secrets', async () => {
    const server = shared();
    const account = await createAccount(server);
    const created = await server.request('POST', '/v1/tokens', {
      token: account.key,
      json: { name: 'CI', kind: 'agent', scenes: ['rocket'], default_target: 'iphone', own_status: false },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^tok_/),
      token: expect.stringMatching(/^fox_send_[A-Za-z0-9]{32}$/),
      name: 'CI',
      kind: 'agent',
      own_status: false,
      device_names: true,
      scenes: ['rocket'],
      allow_urls: false,
      default_target: 'iphone',
      expires_at: null,
      revoked_at: null,
      created_at: expect.stringMatching(TIMESTAMP),
    });
    const list = await server.request('GET', '/v1/tokens', { token: account.key });
    expect(list.text).not.toContain(created.body.token);
    expect(list.body.tokens).toHaveLength(2);
  });

  it('takes an expiry on a day that exists, 29 February of a leap year included', async () => {
    const server = shared();
    const account = await createAccount(server);
    const reply = await server.request('POST', '/v1/tokens', {
      token: account.key,
      json: { expires_at: '2028-02-29T23:59:59.999Z' },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.expires_at).toBe('2028-02-29T23:59:59.999Z');
  });

  it('rejects a 51st live token with 409 limit_reached', async () => {
    const server = shared();
    const account = await createAccount(server);
    for (let i = 2; i <= 50; i++) await createToken(server, account.key);
    const refused = await server.request('POST', '/v1/tokens', { token: account.key, json: {} });
    expectError(refused, 409, 'limit_reached');
    expect(refused.body.error.details).toEqual({ limit: 'tokens', max: 50 });
  });

  it('counts live tokens only toward the 50: expired ones leave room, from the instant they expire', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const expiresAt = new Date(server.clock.now() + 60_000).toISOString();
    for (let i = 2; i <= 50; i++) await createToken(server, account.key, { expires_at: expiresAt });
    const create = () => server.request('POST', '/v1/tokens', { token: account.key, json: {} });
    expectError(await create(), 409, 'limit_reached');
    server.clock.advance(59_999);
    expectError(await create(), 409, 'limit_reached');
    server.clock.advance(1);
    expect((await create()).status).toBe(201);
    // Listed apart: the live ones, then the newest retired.
    const listed = (await server.request('GET', '/v1/tokens', { token: account.key })).body.tokens;
    expect(listed).toHaveLength(51);
  });

  it.each([
    [{ scenes: ['disco'] }, 'scenes.0'],
    [{ expires_at: '2020-01-01T00:00:00.000Z' }, 'expires_at'],
    [{ expires_at: 'tomorrow' }, 'expires_at'],
    // Dates that do not exist, which Date.parse would roll over into the next month or day.
    [{ expires_at: '2027-02-30T00:00:00.000Z' }, 'expires_at'],
    [{ expires_at: '2027-04-31T12:00:00.000Z' }, 'expires_at'],
    [{ expires_at: '2027-01-01T24:00:00.000Z' }, 'expires_at'],
    [{ expires_at: '2027-01-01T12:60:00.000Z' }, 'expires_at'],
    [{ kind: 'robot' }, 'kind'],
    [{ own_status: 'yes' }, 'own_status'],
  ])('rejects token options %j', async (json, field) => {
    const server = shared();
    const account = await createAccount(server);
    expectError(
      await server.request('POST', '/v1/tokens', { token: account.key, json }),
      400,
      'invalid_field',
      field,
    );
  });

  it('drops the notifications of a revoked token that are not yet routed, with reason token_revoked', async () => {
    const server = shared();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi' },
    });
    const list = await server.request('GET', '/v1/tokens', { token: account.key });
    await server.request('DELETE', `/v1/tokens/${list.body.tokens[0].id}`, { token: account.key });
    const status = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, {
      token: account.key,
    });
    expect(status.body).toMatchObject({ status: 'dropped', reason: 'token_revoked' });
  });
});

describe('status, events and the inbox', () => {
  it('returns the status record of a notification sent by the same token', async () => {
    const server = shared();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi' },
    });
    const status = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, {
      token: account.token,
    });
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ id: sent.body.id, status: 'accepted', destinations: [], handled: [] });
  });

  it('responds with 404 for another token, an unknown id, and any id while own_status is off', async () => {
    const server = shared();
    const account = await createAccount(server);
    const other = await createToken(server, account.key);
    const blind = await createToken(server, account.key, { own_status: false });
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi' },
    });
    const own = await server.request('POST', '/v1/notifications', { token: blind, json: { message: 'hi' } });
    expectError(
      await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token: other }),
      404,
      'not_found',
      'id',
    );
    expectError(
      await server.request('GET', '/v1/notifications/ntf_nope/status', { token: account.token }),
      404,
      'not_found',
      'id',
    );
    expectError(
      await server.request('GET', `/v1/notifications/${own.body.id}/status`, { token: blind }),
      404,
      'not_found',
      'id',
    );
  });

  it('records opened and cleared in handled and in status, which only moves forward', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi' },
    });
    await routeQueued(server);
    const event = (action: string, device = account.devices[0]?.id) =>
      server.request('POST', `/v1/notifications/${sent.body.id}/events`, {
        token: account.key,
        json: { device_id: device, action },
      });
    expect((await event('cleared')).status).toBe(204);
    server.clock.advance(1000);
    expect((await event('opened', account.devices[1]?.id)).status).toBe(204);
    const status = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, {
      token: account.token,
    });
    expect(status.body.status).toBe('cleared');
    expect(status.body.handled).toEqual([
      { action: 'cleared', platform: 'ios', at: '2026-11-22T10:00:00.000Z' },
      { action: 'opened', platform: 'watchos', at: '2026-11-22T10:00:01.000Z' },
    ]);
    expectError(await event('opened', 'dev_unknown'), 400, 'invalid_field', 'device_id');
    expectError(await event('displayed'), 400, 'invalid_field', 'action');
  });

  it('records a report once per device and action, only from a device the notification went to', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'to the iPhone', target: 'iphone' },
    });
    const [iphone, watch] = account.devices;
    const event = (action: string, device = iphone?.id) =>
      server.request('POST', `/v1/notifications/${sent.body.id}/events`, {
        token: account.key,
        json: { device_id: device, action },
      });
    // Not routed yet: it went to no device.
    expectError(await event('opened'), 400, 'invalid_field', 'device_id');
    await routeQueued(server);
    // The watch is this account's, but the notification did not go to it.
    expectError(await event('opened', watch?.id), 400, 'invalid_field', 'device_id');
    for (let i = 0; i < 5; i += 1) {
      expect((await event('opened')).status).toBe(204);
      server.clock.advance(1000);
    }
    expect((await event('cleared')).status).toBe(204);
    const status = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, {
      token: account.token,
    });
    expect(status.body.status).toBe('cleared');
    expect(status.body.handled).toEqual([
      { action: 'opened', platform: 'ios', at: '2026-11-22T10:00:00.000Z' },
      { action: 'cleared', platform: 'ios', at: '2026-11-22T10:00:05.000Z' },
    ]);
  });

  it('limits reports to 120 a minute per account: 429 rate_limited with Retry-After; the record stays small', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const other = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi' },
    });
    await routeQueued(server);
    const report = (key: string, device: string | undefined) =>
      server.request('POST', `/v1/notifications/${sent.body.id}/events`, {
        token: key,
        json: { device_id: device, action: 'opened' },
      });
    server.clock.advance(30_000);
    for (let i = 0; i < 120; i += 1) {
      const reply = await report(account.key, account.devices[i % 3]?.id);
      expect(reply.status, reply.text).toBe(204);
    }
    const limited = await report(account.key, account.devices[0]?.id);
    const body = expectError(limited, 429, 'rate_limited');
    expect(body.error.details).toEqual({ scope: 'account_events', limit: 120 });
    expect(limited.headers.get('retry-after')).toBe('60');
    // Another account's window, and this account's management writes, are apart from it.
    expect((await report(other.key, other.devices[0]?.id)).status).toBe(404);
    expect((await server.request('POST', '/v1/tokens', { token: account.key, json: {} })).status).toBe(201);
    server.clock.advance(60_000);
    expect((await report(account.key, account.devices[0]?.id)).status).toBe(204);
    // 121 reports, one per device and action kept.
    const status = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, {
      token: account.token,
    });
    expect(status.body.handled).toHaveLength(3);
  });

  it('pages the inbox newest first and rejects a cursor of another account or past retention', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await server.request('POST', '/v1/notifications', {
        token: account.token,
        json: { message: `m${i}` },
      });
      ids.push(reply.body.id);
      server.clock.advance(1000);
    }
    const first = await server.request('GET', '/v1/inbox?limit=2', { token: account.key });
    expect(first.body.items.map((item: { id: string }) => item.id)).toEqual([ids[4], ids[3]]);
    const second = await server.request('GET', `/v1/inbox?limit=2&cursor=${first.body.next_cursor}`, {
      token: account.key,
    });
    expect(second.body.items.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    const third = await server.request('GET', `/v1/inbox?limit=2&cursor=${second.body.next_cursor}`, {
      token: account.key,
    });
    expect(third.body.items.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
    expect(third.body.next_cursor).toBeNull();

    const stranger = await createAccount(server);
    expectError(
      await server.request('GET', `/v1/inbox?cursor=${first.body.next_cursor}`, { token: stranger.key }),
      410,
      'cursor_expired',
    );
    server.clock.advance(30 * 86_400_000);
    expectError(
      await server.request('GET', `/v1/inbox?cursor=${first.body.next_cursor}`, { token: account.key }),
      410,
      'cursor_expired',
    );
    expectError(
      await server.request('GET', '/v1/inbox?limit=101', { token: account.key }),
      400,
      'invalid_field',
      'limit',
    );
  });

  it('limits an account to 60 management writes a minute: 429 rate_limited with Retry-After, per account', async () => {
    const server = await startServer();
    const account = await createAccount(server); // 1 device write + 3 + 1 token: 5 writes
    const other = await createAccount(server);
    server.clock.advance(60_000);
    const create = (key: string) => server.request('POST', '/v1/tokens', { token: key, json: {} });
    const revoke = (key: string, id: string) => server.request('DELETE', `/v1/tokens/${id}`, { token: key });
    for (let i = 0; i < 30; i += 1) {
      const made = await create(account.key);
      expect(made.status, made.text).toBe(201);
      expect((await revoke(account.key, made.body.id)).status).toBe(204);
    }
    server.clock.advance(20_500);
    const refused = await create(account.key);
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.body.error.details).toEqual({ scope: 'account_changes', limit: 60 });
    for (const change of [
      () =>
        server.request('PATCH', `/v1/devices/${account.devices[0]?.id}`, {
          token: account.key,
          json: { name: 'x' },
        }),
      () => server.request('POST', '/v1/account/key', { token: account.key, json: {} }),
      () => server.request('DELETE', '/v1/account', { token: account.key }),
    ]) {
      expectError(await change(), 429, 'rate_limited');
    }
    // Reading is not limited, nor is another account.
    expect((await server.request('GET', '/v1/tokens', { token: account.key })).status).toBe(200);
    expect((await create(other.key)).status).toBe(201);
    // The next minute takes writes again.
    server.clock.advance(39_500);
    expect((await create(account.key)).status).toBe(201);
  });

  it('keeps notifications readable for 30 days, then the purge removes them', async () => {
    const server = await startServer();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi', ttl: 1 },
    });
    // Notifications older than 30 days, and nothing else.
    const purgeNotifications = () =>
      server.store.purge(
        {
          notificationsBefore: server.clock.now() - 30 * 86_400_000,
          keysBefore: 0,
          windowsBefore: 0,
          credentialsBefore: 0,
          wrongCodesBefore: 0,
        },
        PURGE_BATCH,
      );
    server.clock.advance(30 * 86_400_000 - 1);
    await purgeNotifications();
    expect(
      (await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token: account.token }))
        .status,
    ).toBe(200);
    server.clock.advance(2);
    await purgeNotifications();
    expectError(
      await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token: account.token }),
      404,
      'not_found',
      'id',
    );
  });
});

describe('scenes and unknown routes', () => {
  it('lists each scene with its versions and a JSON Schema of the parameters', async () => {
    const server = shared();
    const account = await createAccount(server);
    const reply = await server.request('GET', '/v1/scenes', { token: account.token });
    const rocket = reply.body.scenes.find((scene: { id: string }) => scene.id === 'rocket');
    expect(rocket).toMatchObject({ id: 'rocket', name: 'Rocket', current_version: 1 });
    expect(rocket.versions[0].params.properties.countdown).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: 10,
      default: 3,
    });
    expect(reply.body.scenes.map((scene: { id: string }) => scene.id)).toEqual([
      'notice',
      'rocket',
      'fireworks',
      'garage',
      'campfire',
    ]);
  });

  it('answers an unknown route with 404 not_found and the full error body', async () => {
    const server = shared();
    expectError(await server.request('GET', '/v1/nothing'), 404, 'not_found');
    expectError(await server.request('GET', '/v1/scenes/'), 404, 'not_found');
  });
});
