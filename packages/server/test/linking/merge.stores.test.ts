import { describe, expect, it } from 'vitest';
import {
  bareAccount,
  createToken,
  expectError,
  pushToken,
  routeQueued,
  startServer,
  type TestServer,
} from '../helpers.js';

/**
 * Two accounts of one person becoming one group: the merged account's devices, tokens, inbox and
 * approvals move to the one that survives, in one transaction on each store.
 */

const merge = (server: TestServer, canonicalKey: string, mergedKey: string) =>
  server.request('POST', '/v1/account/merge', { token: canonicalKey, json: { account_key: mergedKey } });

const addDevice = (server: TestServer, key: string, name: string) =>
  server.request('POST', '/v1/devices', {
    token: key,
    json: { name, platform: 'ios', push_token: pushToken() },
  });

/** A device that linked itself to `accountKey` as `deviceId`: its id and key. */
async function linked(server: TestServer, accountKey: string, deviceId: string) {
  const link = await server.request('POST', '/v1/link-requests', {
    json: { device_id: deviceId, name: deviceId, platform: 'ios', push_token: pushToken() },
  });
  await server.request('POST', '/v1/link-approvals', { token: accountKey, json: { code: link.body.code } });
  const polled = await server.request('GET', `/v1/link-requests/${link.body.id}`, {
    token: link.body.secret,
  });
  return { id: polled.body.device.id as string, key: polled.body.device_key as string };
}

const inboxIds = async (server: TestServer, key: string) =>
  (await server.request('GET', '/v1/inbox?limit=100', { token: key })).body.items.map(
    (item: { id: string }) => item.id,
  );

describe('merging accounts', () => {
  it("moves the merged account's devices, tokens and inbox; its key responds account_merged; its tokens keep sending", async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const old = await bareAccount(server);
    await addDevice(server, ana.key, 'iPhone');
    await addDevice(server, old.key, 'Old iPad');
    const oldToken = await createToken(server, old.key, { name: 'Old CI' });
    const before = await server.request('POST', '/v1/notifications', {
      token: oldToken,
      json: { message: 'before' },
    });
    await routeQueued(server);

    const merged = await merge(server, ana.key, old.key);
    expect([merged.status, merged.body]).toEqual([
      200,
      { canonical_account_id: ana.id, accounts: [ana.id, old.id] },
    ]);

    const refused = expectError(
      await server.request('GET', '/v1/devices', { token: old.key }),
      401,
      'account_merged',
    );
    expect(refused.error.details).toEqual({ canonical_account_id: ana.id });
    const devices = await server.request('GET', '/v1/devices', { token: ana.key });
    expect(devices.body.devices.map((device: { name: string }) => device.name)).toEqual([
      'iPhone',
      'Old iPad',
    ]);
    const tokens = await server.request('GET', '/v1/tokens', { token: ana.key });
    expect(tokens.body.tokens.map((token: { name: string }) => token.name)).toEqual(['Old CI']);

    const after = await server.request('POST', '/v1/notifications', {
      token: oldToken,
      json: { message: 'after' },
    });
    expect(after.status).toBe(202);
    expect(await inboxIds(server, ana.key)).toEqual([after.body.id, before.body.id]);
  });

  it('rejects a group past 5 accounts (merge_group_full) and a merge past 20 devices, changing nothing', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    for (let i = 0; i < 4; i++)
      expect((await merge(server, ana.key, (await bareAccount(server)).key)).status).toBe(200);
    const sixth = await bareAccount(server);
    expectError(await merge(server, ana.key, sixth.key), 409, 'merge_group_full');
    expect((await server.request('GET', '/v1/devices', { token: sixth.key })).status).toBe(200);

    const bob = await bareAccount(server);
    const many = await bareAccount(server);
    for (let i = 0; i < 15; i++) expect((await addDevice(server, bob.key, `Bob ${i}`)).status).toBe(201);
    for (let i = 0; i < 6; i++) expect((await addDevice(server, many.key, `Many ${i}`)).status).toBe(201);
    const full = expectError(await merge(server, bob.key, many.key), 409, 'limit_reached');
    expect(full.error.details).toEqual({ limit: 'devices', max: 20 });
    const still = await server.request('GET', '/v1/devices', { token: many.key });
    expect(still.body.devices).toHaveLength(6);
  });

  it('supersedes a pending switch request of a device the merge moved: its poll says so, its code is link_superseded', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const old = await bareAccount(server);
    const elsewhere = await bareAccount(server);
    const tablet = await linked(server, old.key, 'tablet-install-1');
    const move = await server.request('POST', '/v1/link-requests', {
      json: {
        device_id: 'tablet-install-1',
        name: 'Tablet',
        platform: 'ios',
        push_token: pushToken(),
        source: { device_key: tablet.key },
        source_in_use: 'leave',
      },
    });
    expect(move.status, move.text).toBe(201);
    expect((await merge(server, ana.key, old.key)).status).toBe(200);
    const polled = await server.request('GET', `/v1/link-requests/${move.body.id}`, {
      token: move.body.secret,
    });
    expect(polled.body.state).toBe('superseded');
    expectError(
      await server.request('POST', '/v1/link-approvals', {
        token: elsewhere.key,
        json: { code: move.body.code },
      }),
      409,
      'link_superseded',
    );
  });

  it('takes only the key of another live account of this service, never echoing it', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const merged = await bareAccount(server);
    expect((await merge(server, ana.key, merged.key)).status).toBe(200);
    for (const key of [ana.key, merged.key, `fox_acct_${'Z'.repeat(32)}`, 'not a key']) {
      const reply = await merge(server, ana.key, key);
      expectError(reply, 400, 'invalid_field', 'account_key');
      expect(reply.text).not.toContain(key);
    }
  });

  it('stores every send that races a merge, under the account that survives', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const old = await bareAccount(server);
    await addDevice(server, old.key, 'iPad');
    const token = await createToken(server, old.key);
    const sends = Array.from({ length: 20 }, (_, i) =>
      server.request('POST', '/v1/notifications', { token, json: { message: `racing ${i}` } }),
    );
    const merged = merge(server, ana.key, old.key);
    const more = Array.from({ length: 20 }, (_, i) =>
      server.request('POST', '/v1/notifications', { token, json: { message: `racing late ${i}` } }),
    );
    const answers = await Promise.all([...sends, ...more]);
    expect((await merged).status).toBe(200);
    const accepted = answers.filter((reply) => reply.status === 202).map((reply) => reply.body.id as string);
    expect(accepted.length).toBeGreaterThan(0);
    expect(answers.every((reply) => reply.status === 202 || reply.status === 429)).toBe(true);
    expect((await inboxIds(server, ana.key)).sort()).toEqual(accepted.sort());
  });
});
