import { describe, expect, it } from 'vitest';
import {
  bareAccount,
  createToken,
  expectError,
  pushToken,
  type Reply,
  startServer,
  type TestServer,
} from '../helpers.js';

/**
 * A device moving from one account to another with proof of the one it leaves (its device key
 * there): checked when the request is made, carried out when the new account approves it.
 */

const request = (server: TestServer, json: Record<string, unknown>): Promise<Reply> =>
  server.request('POST', '/v1/link-requests', {
    json: { name: "Ana's iPhone", platform: 'ios', push_token: pushToken(), ...json },
  });

/** A device linked to `accountKey` as `deviceId`, with its push token and key. */
async function linked(server: TestServer, accountKey: string, deviceId: string, token = pushToken()) {
  const link = await request(server, { device_id: deviceId, push_token: token });
  expect(
    (
      await server.request('POST', '/v1/link-approvals', {
        token: accountKey,
        json: { code: link.body.code },
      })
    ).status,
  ).toBe(201);
  const polled = await server.request('GET', `/v1/link-requests/${link.body.id}`, {
    token: link.body.secret,
  });
  return { id: polled.body.device.id as string, key: polled.body.device_key as string, pushToken: token };
}

describe('switching accounts', () => {
  it('moves a device from A to B when B approves: it leaves A (its key revoked, what waits skipped) with a new key for B', async () => {
    const server = await startServer();
    const a = await bareAccount(server);
    const b = await bareAccount(server);
    const phone = await linked(server, a.key, 'install-phone-1');
    // Something waits for it in A when it leaves.
    const token = await createToken(server, a.key, { name: 'CI' });
    const waiting = await server.request('POST', '/v1/notifications', {
      token,
      json: { message: 'still queued' },
    });
    await server.store.routeQueued({
      now: server.clock.now(),
      limit: 10,
      decide: (input) => ({
        kind: 'deliver',
        destinations: input.devices.map((device) => ({
          device,
          pushId: '00000000-0000-4000-8000-000000000001',
        })),
      }),
    });
    // A still has a send token: "leave" says to go anyway. The same push token is this device's own.
    const move = await request(server, {
      device_id: 'install-phone-1',
      push_token: phone.pushToken,
      source: { device_key: phone.key },
      source_in_use: 'leave',
    });
    expect(move.status, move.text).toBe(201);
    // Until B approves, nothing has changed.
    expect((await server.request('GET', '/v1/inbox', { token: phone.key })).status).toBe(200);

    const approved = await server.request('POST', '/v1/link-approvals', {
      token: b.key,
      json: { code: move.body.code },
    });
    expect(approved.status, approved.text).toBe(201);
    const polled = await server.request('GET', `/v1/link-requests/${move.body.id}`, {
      token: move.body.secret,
    });
    expect(polled.body.account_id).toBe(b.id);
    expect(polled.body.device_key).not.toBe(phone.key);

    expectError(await server.request('GET', '/v1/inbox', { token: phone.key }), 401, 'token_revoked');
    expect((await server.request('GET', '/v1/inbox', { token: polled.body.device_key })).status).toBe(200);
    const inA = await server.request('GET', '/v1/devices', { token: a.key });
    expect(
      inA.body.devices.map((device: Record<string, unknown>) => [
        device.id,
        device.active,
        device.inactive_reason,
      ]),
    ).toEqual([[phone.id, false, 'moved']]);
    const inB = await server.request('GET', '/v1/devices', { token: b.key });
    expect(
      inB.body.devices.map((device: { device_id: string; active: boolean }) => [
        device.device_id,
        device.active,
      ]),
    ).toEqual([['install-phone-1', true]]);
    const record = await server.request('GET', `/v1/notifications/${waiting.body.id}/status`, { token });
    expect(record.body.destinations.map((destination: { state: string }) => destination.state)).toEqual([
      'skipped',
    ]);
  });

  it('rejects a proof that is unknown, revoked or another device’s: source_rejected with its reason', async () => {
    const server = await startServer();
    const a = await bareAccount(server);
    const phone = await linked(server, a.key, 'install-phone-2');
    const watch = await linked(server, a.key, 'install-watch-2');
    const refused = async (source: Record<string, unknown>, deviceId: string, reason: string) => {
      const reply = await request(server, { device_id: deviceId, source, source_in_use: 'leave' });
      const body = expectError(reply, 409, 'source_rejected', 'source.device_key');
      expect(body.error.details).toEqual({ reason });
      // The key is never echoed.
      expect(reply.text).not.toContain(String(source.device_key));
    };
    await refused({ device_key: `fox_dev_${'Q'.repeat(32)}` }, 'install-phone-2', 'unknown_key');
    await refused({ device_key: 'not even a key' }, 'install-phone-2', 'unknown_key');
    await refused({ device_key: watch.key }, 'install-phone-2', 'other_device');
    expect((await server.request('DELETE', '/v1/device', { token: phone.key })).status).toBe(204);
    await refused({ device_key: phone.key }, 'install-phone-2', 'key_revoked');
  });

  it('rejects by default while the old account is in use, counting its tokens and other devices', async () => {
    const server = await startServer();
    const a = await bareAccount(server);
    const phone = await linked(server, a.key, 'install-phone-3');
    const move = () => request(server, { device_id: 'install-phone-3', source: { device_key: phone.key } });
    // Nothing else uses A: the device may leave it without being told to.
    const alone = await move();
    expect(alone.status, alone.text).toBe(201);
    expect(
      (await server.request('DELETE', `/v1/link-requests/${alone.body.id}`, { token: alone.body.secret }))
        .status,
    ).toBe(204);

    await createToken(server, a.key);
    await createToken(server, a.key);
    await linked(server, a.key, 'install-watch-3');
    const inUse = await move();
    const body = expectError(inUse, 409, 'source_in_use');
    expect(body.error.details).toEqual({ token_count: 2, other_devices: 1 });
    // Nothing changed.
    expect((await server.request('GET', '/v1/inbox', { token: phone.key })).status).toBe(200);
    // Without a proof, the device's id is taken.
    expectError(await request(server, { device_id: 'install-phone-3' }), 409, 'device_exists', 'device_id');
  });
});
