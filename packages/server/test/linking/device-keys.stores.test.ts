import { randomBytes } from 'node:crypto';
import { subscriptionAt } from '@foxbell/test-support/web-push-service';
import { describe, expect, it } from 'vitest';
import {
  bareAccount,
  createToken,
  expectError,
  linkedDevice,
  pushToken,
  startServer,
  type TestServer,
} from '../helpers.js';
import { type DeliveryServer, startDeliveryServer } from '../simulated-apns.js';

/**
 * A device key lasts exactly as long as its device is its account's: removed, left, moved to
 * another account by its push address, or merged away, it is revoked. And no path makes a device
 * active past the devices limit.
 */

/** What a device key can do, each responded with `401 token_revoked` once its device moved. */
async function expectKeyRevoked(server: TestServer, key: string, otherCode: string) {
  expectError(await server.request('GET', '/v1/inbox', { token: key }), 401, 'token_revoked');
  expectError(await server.request('GET', '/v1/device', { token: key }), 401, 'token_revoked');
  expectError(
    await server.request('PATCH', '/v1/device', { token: key, json: { push_token: pushToken() } }),
    401,
    'token_revoked',
  );
  expectError(
    await server.request('POST', '/v1/link-approvals', { token: key, json: { code: otherCode } }),
    401,
    'token_revoked',
  );
}

const pushes = {
  'an APNs push token': () => {
    const token = pushToken();
    return { body: { push_token: token }, again: { push_token: token } };
  },
  'a Web Push endpoint': () => {
    const subscription = subscriptionAt(`https://web.push.apple.com/${randomBytes(16).toString('hex')}`);
    return { body: { web_push: subscription }, again: { web_push: subscription } };
  },
};

/**
 * A device linked to `accountKey` whose push token APNs then said is gone (a 410 on a send):
 * inactive, its key still its own.
 */
async function inactiveLinkedDevice(server: DeliveryServer, accountKey: string) {
  const token = pushToken();
  const phone = await linkedDevice(server, accountKey, { push_token: token });
  server.clock.advance(1000);
  server.sim.unregisterToken(token, server.clock.now());
  const sent = await server.request('POST', '/v1/notifications', {
    token: await createToken(server, accountKey),
    json: { message: 'gone' },
  });
  expect(sent.status).toBe(202);
  await server.worker.tick();
  return phone;
}

describe('a device key whose device moves to another account', () => {
  it.each(Object.entries(pushes))(
    'is revoked when another account registers its device with %s: inbox, PATCH and approvals',
    async (_, push) => {
      const server = await startDeliveryServer();
      const ana = await bareAccount(server);
      const bob = await bareAccount(server);
      const { body, again } = push();
      const phone = await linkedDevice(server, ana.key, body);
      expect((await server.request('GET', '/v1/inbox', { token: phone.key })).status).toBe(200);
      const registered = await server.request('POST', '/v1/devices', {
        token: bob.key,
        json: { name: "Bob's phone", platform: 'ios', ...again },
      });
      expect(registered.status, registered.text).toBe(201);
      // What Ana's account is sent after the move does not reach the key either.
      const anaToken = await createToken(server, ana.key);
      await server.request('POST', '/v1/notifications', { token: anaToken, json: { message: 'after' } });
      const pending = await server.request('POST', '/v1/link-requests', {
        json: { device_id: 'install-next', name: 'Next', platform: 'ios', push_token: pushToken() },
      });
      await expectKeyRevoked(server, phone.key, pending.body.code);
      // The code it tried was not approved into Ana's account.
      expect((await server.request('GET', '/v1/devices', { token: ana.key })).body.devices).toEqual([
        expect.objectContaining({ id: phone.id, active: false, inactive_reason: 'moved' }),
      ]);
    },
  );

  it('keeps working when only the push service said its subscription is gone (a 410): PATCH brings it back', async () => {
    const server = await startDeliveryServer();
    const ana = await bareAccount(server);
    const phone = await inactiveLinkedDevice(server, ana.key);
    // Its app reads why, with its own key; its account, with the account key.
    const own = (await server.request('GET', '/v1/device', { token: phone.key })).body;
    expect([own.active, own.inactive_reason]).toEqual([false, 'unregistered']);
    const listed = (await server.request('GET', '/v1/devices', { token: ana.key })).body.devices;
    expect(listed).toEqual([expect.objectContaining({ id: phone.id, inactive_reason: 'unregistered' })]);
    const revived = await server.request('PATCH', '/v1/device', {
      token: phone.key,
      json: { push_token: pushToken() },
    });
    expect([revived.status, revived.body.active, 'inactive_reason' in revived.body]).toEqual([
      200,
      true,
      false,
    ]);
  });
});

describe('the devices limit on every path that makes a device active', () => {
  it('PATCH /v1/device does not bring back a device made inactive (410) while 20 others are active', async () => {
    const server = await startDeliveryServer();
    const ana = await bareAccount(server);
    const phone = await inactiveLinkedDevice(server, ana.key);
    const others: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const device = await server.request('POST', '/v1/devices', {
        token: ana.key,
        json: { name: `device ${i}`, platform: 'ios', push_token: pushToken() },
      });
      expect(device.status, device.text).toBe(201);
      others.push(device.body.id);
    }
    const refused = expectError(
      await server.request('PATCH', '/v1/device', { token: phone.key, json: { push_token: pushToken() } }),
      409,
      'limit_reached',
    );
    expect(refused.error.details).toEqual({ limit: 'devices', max: 20 });
    expect((await server.request('GET', '/v1/device', { token: phone.key })).body.active).toBe(false);
    // A rename alone makes nothing active: it is taken.
    const renamed = await server.request('PATCH', '/v1/device', { token: phone.key, json: { name: 'Old' } });
    expect([renamed.status, renamed.body.active]).toEqual([200, false]);
    // An active device re-registering is not one more: taken at the limit.
    await server.request('DELETE', `/v1/devices/${others[0]}`, { token: ana.key });
    const back = await server.request('PATCH', '/v1/device', {
      token: phone.key,
      json: { push_token: pushToken() },
    });
    expect([back.status, back.body.active]).toEqual([200, true]);
    const again = await server.request('PATCH', '/v1/device', {
      token: phone.key,
      json: { push_token: pushToken() },
    });
    expect([again.status, again.body.active]).toEqual([200, true]);
  });
});

describe('a link approval racing a registration of the same push token in another account', () => {
  it('never fails: the later one holds the push token, and the other device is moved (its key revoked)', async () => {
    const server = await startDeliveryServer();
    const ana = await bareAccount(server);
    const bob = await bareAccount(server);
    for (let race = 0; race < 25; race += 1) {
      const token = pushToken();
      const link = await server.request('POST', '/v1/link-requests', {
        json: { device_id: `racing-device-${race}`, name: 'Racer', platform: 'ios', push_token: token },
      });
      expect(link.status, link.text).toBe(201);
      const [approved, registered] = await Promise.all([
        server.request('POST', '/v1/link-approvals', { token: ana.key, json: { code: link.body.code } }),
        server.request('POST', '/v1/devices', {
          token: bob.key,
          json: { name: `Racer ${race}`, platform: 'ios', push_token: token },
        }),
      ]);
      expect([approved.status, registered.status], `${approved.text} ${registered.text}`).toEqual([201, 201]);
      const active = async (key: string, id: string) =>
        (await server.request('GET', '/v1/devices', { token: key })).body.devices.find(
          (device: { id: string }) => device.id === id,
        )?.active === true;
      const anaHolds = await active(ana.key, approved.body.device.id);
      const bobHolds = await active(bob.key, registered.body.id);
      expect(anaHolds !== bobHolds, `race ${race}: one holder`).toBe(true);
      // The linked device's key works while it holds the push token, and not once it was moved.
      const { device_key: key } = (
        await server.request('GET', `/v1/link-requests/${link.body.id}`, { token: link.body.secret })
      ).body;
      const own = await server.request('GET', '/v1/device', { token: key });
      if (anaHolds) expect(own.status).toBe(200);
      else expectError(own, 401, 'token_revoked');
      // Both removed: 25 races would pass the devices limit of 20.
      await server.request('DELETE', `/v1/devices/${registered.body.id}`, { token: bob.key });
      await server.request('DELETE', `/v1/devices/${approved.body.device.id}`, { token: ana.key });
      // An account approves 5 links in 10 minutes.
      server.clock.advance(10 * 60_000);
    }
  });
});

describe('freshness: when each device was last seen, and which Web Push devices went stale', () => {
  const DAY = 86_400_000;

  it('keeps last_seen_at to the minute from the device key, and calls a Web Push device unseen for --device-stale-days stale', async () => {
    const server = await startDeliveryServer();
    const ana = await bareAccount(server);
    const created = server.clock.now();
    const web = await linkedDevice(server, ana.key, {
      web_push: subscriptionAt(`https://web.push.apple.com/${randomBytes(16).toString('hex')}`),
    });
    await linkedDevice(server, ana.key, { push_token: pushToken() });
    const listed = async () =>
      Object.fromEntries(
        (await server.request('GET', '/v1/devices', { token: ana.key })).body.devices.map(
          (device: { id: string; last_seen_at: string | null; stale: boolean }) => [
            device.id === web.id ? 'web' : 'apns',
            [device.last_seen_at, device.stale],
          ],
        ),
      );
    // Linked, its key not used yet.
    expect(await listed()).toEqual({ web: [null, false], apns: [null, false] });

    // Used: seen now, as its own GET /v1/device says too.
    server.clock.advance(1000);
    const own = await server.request('GET', '/v1/device', { token: web.key });
    const seenAt = new Date(created + 1000).toISOString();
    expect([own.body.last_seen_at, own.body.stale]).toEqual([seenAt, false]);
    // Within the minute, a use is not written again; past it, it is.
    server.clock.advance(59_000);
    await server.request('GET', '/v1/inbox', { token: web.key });
    expect((await listed()).web).toEqual([seenAt, false]);
    server.clock.advance(1000);
    await server.request('GET', '/v1/inbox', { token: web.key });
    const later = new Date(created + 61_000).toISOString();
    expect((await listed()).web).toEqual([later, false]);

    // 30 days (the default) without its app opened: stale. An APNs device never is: APNs says
    // when its token is gone.
    server.clock.advance(30 * DAY - 1);
    expect(await listed()).toEqual({ web: [later, false], apns: [null, false] });
    server.clock.advance(1);
    expect(await listed()).toEqual({ web: [later, true], apns: [null, false] });
    // Opened again: fresh.
    await server.request('GET', '/v1/inbox', { token: web.key });
    expect((await listed()).web).toEqual([new Date(server.clock.now()).toISOString(), false]);
    expect((await listed()).apns).toEqual([null, false]);
  });

  it('takes the number of days from the server (--device-stale-days)', async () => {
    const server = await startServer({ limits: { deviceStaleMs: 2 * DAY } });
    const ana = await bareAccount(server);
    const device = await server.request('POST', '/v1/devices', {
      token: ana.key,
      json: {
        name: 'iPhone',
        platform: 'ios',
        web_push: subscriptionAt(`https://web.push.apple.com/${randomBytes(16).toString('hex')}`),
      },
    });
    // Registered by the account key: no key to be seen by, so judged from its registration.
    expect([device.body.last_seen_at, device.body.stale]).toEqual([null, false]);
    server.clock.advance(2 * DAY);
    const [listed] = (await server.request('GET', '/v1/devices', { token: ana.key })).body.devices;
    expect([listed.last_seen_at, listed.stale]).toEqual([null, true]);
  });
});
