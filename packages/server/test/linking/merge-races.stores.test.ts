import { describe, expect, it } from 'vitest';
import { AccountEndedError } from '../../src/model/accounts.js';
import { bareAccount, expectError, pushToken, type Reply, startServer, type TestServer } from '../helpers.js';

/**
 * Merges and other account writes that run at once. The route checks that both accounts are
 * neither merged nor deleted; each write checks it again inside its transaction, under the
 * accounts' locks, so whatever runs at once every account stays reachable through a working key.
 */

const merge = (server: TestServer, canonicalKey: string, mergedKey: string) =>
  server.request('POST', '/v1/account/merge', { token: canonicalKey, json: { account_key: mergedKey } });

async function accountWithDevice(server: TestServer) {
  const account = await bareAccount(server);
  const device = await server.request('POST', '/v1/devices', {
    token: account.key,
    json: { name: 'iPhone', platform: 'ios', push_token: pushToken() },
  });
  expect(device.status, device.text).toBe(201);
  return { ...account, deviceId: device.body.id as string };
}

/** Every device is listed by some key that still works. */
async function expectEveryDeviceReachable(server: TestServer, accounts: { key: string; deviceId: string }[]) {
  const reachable = new Set<string>();
  for (const { key } of accounts) {
    const listed = await server.request('GET', '/v1/devices', { token: key });
    if (listed.status === 200) {
      for (const device of listed.body.devices) if (device.active) reachable.add(device.id);
    } else {
      expect([listed.status, listed.body.error.code]).toEqual([401, 'account_merged']);
    }
  }
  expect([...reachable].sort()).toEqual(accounts.map((account) => account.deviceId).sort());
}

describe('merges at once', () => {
  it('A takes B and B takes A at the same moment: one wins, the other is account_merged, both devices stay reachable', async () => {
    const server = await startServer();
    const pairs = await Promise.all(
      Array.from({ length: 12 }, async () => ({
        a: await accountWithDevice(server),
        b: await accountWithDevice(server),
      })),
    );
    const answers = await Promise.all(
      pairs.map(({ a, b }) => Promise.all([merge(server, a.key, b.key), merge(server, b.key, a.key)])),
    );
    for (const pair of answers) {
      expect(pair.map((reply) => reply.status).sort()).toEqual([200, 401]);
      const loser = pair.find((reply) => reply.status === 401) as Reply;
      expectError(loser, 401, 'account_merged');
    }
    await expectEveryDeviceReachable(
      server,
      pairs.flatMap(({ a, b }) => [a, b]),
    );
  });

  it('Y takes A while A takes E: E ends reachable, in one group or on its own', async () => {
    const server = await startServer();
    const chains = await Promise.all(
      Array.from({ length: 8 }, async () => ({
        y: await accountWithDevice(server),
        a: await accountWithDevice(server),
        e: await accountWithDevice(server),
      })),
    );
    await Promise.all(
      chains.flatMap(({ y, a, e }) => [merge(server, y.key, a.key), merge(server, a.key, e.key)]),
    );
    await expectEveryDeviceReachable(
      server,
      chains.flatMap(({ y, a, e }) => [y, a, e]),
    );
  });

  it('a merge that waited behind another is checked again in its transaction: nothing moves under a merged account', async () => {
    // The interleaving the races above hit by chance, in order: both requests passed the route's
    // checks, then one merge commits before the other's transaction begins.
    const server = await startServer();
    const [a, b, y, e] = [
      await accountWithDevice(server),
      await accountWithDevice(server),
      await accountWithDevice(server),
      await accountWithDevice(server),
    ];
    const now = server.clock.now();
    const limits = { groupMax: 5, devices: 20 };
    const mergeIn = (canonicalId: string, mergedId: string) =>
      server.store.mergeAccounts({ canonicalId, mergedId, now, limits });
    expect((await mergeIn(a.id, b.id)).kind).toBe('merged');
    // B takes A: B, the caller, was merged meanwhile.
    await expect(mergeIn(b.id, a.id)).rejects.toBeInstanceOf(AccountEndedError);
    // Y takes B: B, the other, was merged meanwhile.
    expect(await mergeIn(y.id, b.id)).toEqual({ kind: 'other_ended' });
    // Every other write for B that passed its authentication before the merge.
    await expect(
      server.store.createDevice(
        {
          id: 'dev_late',
          accountId: b.id,
          name: 'late',
          platform: 'ios',
          address: { provider: 'apns', key: pushToken(), data: null },
          inAuto: true,
          now,
        },
        20,
      ),
    ).rejects.toBeInstanceOf(AccountEndedError);
    await expect(server.store.deleteAccount(b.id, now)).rejects.toBeInstanceOf(AccountEndedError);
    await expect(
      server.store.approveLink({
        codeHash: undefined,
        accountId: b.id,
        deviceId: 'dev_late2',
        now,
        limits: { windowMs: 600_000, wrongCodes: 5, approvals: 5, devices: 20 },
      }),
    ).rejects.toBeInstanceOf(AccountEndedError);
    // A deleted account is not merged in, nor does it merge.
    await server.store.deleteAccount(e.id, now);
    expect(await mergeIn(y.id, e.id)).toEqual({ kind: 'other_ended' });
    await expect(mergeIn(e.id, y.id)).rejects.toBeInstanceOf(AccountEndedError);

    expectError(await merge(server, b.key, a.key), 401, 'account_merged');
    await expectEveryDeviceReachable(server, [a, b, y]);
  });

  it('a token made for an account merged meanwhile: 401 account_merged for its account key, and no token under it', async () => {
    const server = await startServer();
    const a = await accountWithDevice(server);
    const b = await accountWithDevice(server);
    const [merged, token] = await Promise.all([
      merge(server, a.key, b.key),
      server.request('POST', '/v1/tokens', { token: b.key, json: { name: 'late' } }),
    ]);
    expect(merged.status).toBe(200);
    if (token.status !== 201) expectError(token, 401, 'account_merged');
    // Made before the merge, it moved with it: the survivor lists it.
    const listed = await server.request('GET', '/v1/tokens', { token: a.key });
    expect(listed.body.tokens.filter((t: { name: string }) => t.name === 'late')).toHaveLength(
      token.status === 201 ? 1 : 0,
    );
  });
});
