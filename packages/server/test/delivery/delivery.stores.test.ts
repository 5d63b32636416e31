import { describe, expect, it, vi } from 'vitest';
import { ApnsClient } from '../../src/delivery/apns/client.js';
import { ApnsTransport } from '../../src/delivery/apns/transport.js';
import type { PushDestination, PushOutcome } from '../../src/delivery/transport.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { type Account, createAccount, createToken, warningsOf, willNotArrive } from '../helpers.js';
import { PROVIDER_IDS } from '../providers.js';
import {
  type DeliveryServer,
  deliveryServerForAll,
  PROVIDER_KEY,
  startDeliveryServer,
  TOPICS,
} from '../simulated-apns.js';

// One server for the tests that make an account of their own and leave the clock, the workers and
// the log alone; those that move the clock, script failures into retries, stop a worker or read the
// warnings of the whole server start their own.
const shared = deliveryServerForAll();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function sendAndDeliver(server: DeliveryServer, token: string, json: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/notifications', { token, json });
  expect(reply.status, reply.text).toBe(202);
  await server.worker.tick();
  return reply.body.id as string;
}

async function statusOf(server: DeliveryServer, token: string, id: string) {
  const reply = await server.request('GET', `/v1/notifications/${id}/status`, { token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

const pushesTo = (server: DeliveryServer, device: Account['devices'][number]) =>
  server.sim.received(device.push_token);

/** What a device was pushed, as APNs responded: status, message and collapse id. */
const bodiesPushedTo = (server: DeliveryServer, device: Account['devices'][number]) =>
  pushesTo(server, device).map((push) => [
    push.status,
    (push.payload as { aps: { alert: { body: string } } }).aps.alert.body,
    push.headers['apns-collapse-id'],
  ]);

describe('delivery to every device of a send', () => {
  it('pushes a send to each auto device over HTTP/2 and reports sent_to_push with each destination accepted', async () => {
    const server = shared();
    const account = await createAccount(server, { name: 'CI' });
    const id = await sendAndDeliver(server, account.token, { message: 'Build passed', scene: 'rocket' });

    const record = await statusOf(server, account.token, id);
    const at = new Date(server.clock.now()).toISOString();
    expect(record).toEqual({
      id,
      status: 'sent_to_push',
      destinations: [
        { name: "Ana's iPhone", platform: 'ios', state: 'accepted', push_status: 200, updated_at: at },
        { name: "Ana's Watch", platform: 'watchos', state: 'accepted', push_status: 200, updated_at: at },
        {
          name: "Ana's Vision Pro",
          platform: 'visionos',
          state: 'accepted',
          push_status: 200,
          updated_at: at,
        },
      ],
      handled: [],
    });
    const [iphone, watch] = account.devices as [Account['devices'][number], Account['devices'][number]];
    const [push] = pushesTo(server, iphone);
    expect(push?.apns_id).toMatch(UUID);
    expect(push?.headers).toEqual({
      'apns-push-type': 'alert',
      'apns-topic': TOPICS.ios,
      'apns-priority': '10',
      'apns-expiration': String(Math.floor(server.clock.now() / 1000) + 86_400),
      'apns-id': push?.apns_id,
    });
    expect(push?.payload).toEqual({
      aps: {
        alert: { title: 'Rocket', body: 'Build passed' },
        sound: 'default',
        'interruption-level': 'active',
        'mutable-content': 1,
      },
      foxbell: { id, sender: 'CI', scene: 'rocket', scene_version: 1, scene_params: {}, bell_color: 'gold' },
    });
    expect(pushesTo(server, watch)[0]?.headers['apns-topic']).toBe(TOPICS.watchos);
    expect(server.sim.received()).toHaveLength(3);
    // Without the device_names scope, a token reads its destinations by platform alone.
    const unnamed = await createToken(server, account.key, { device_names: false });
    const sentUnnamed = await sendAndDeliver(server, unnamed, { message: 'no names' });
    expect(
      (await statusOf(server, unnamed, sentUnnamed)).destinations.map((one: Record<string, unknown>) =>
        Object.keys(one),
      ),
    ).toEqual(Array(3).fill(['platform', 'state', 'push_status', 'updated_at']));
  });

  it('maps every field to APNs headers and payload keys', async () => {
    const server = shared();
    const account = await createAccount(server, { name: 'Garage bot' });
    const id = await sendAndDeliver(server, account.token, {
      message: 'Door left open',
      title: 'Garage',
      subtitle: 'Side door',
      scene: 'garage',
      scene_params: { doorState: 'opening' },
      bell_color: '#AA00CC',
      url: 'https://example.com/cam',
      url_title: 'Camera',
      image: 'https://example.com/door.jpg',
      level: 'passive',
      group: 'house',
      tag: 'garage-door',
      sound: 'none',
      ttl: 600,
      target: 'iphone',
    });
    const [push, ...others] = server.sim.received();
    expect(others).toEqual([]);
    expect(push?.headers).toEqual({
      'apns-push-type': 'alert',
      'apns-topic': TOPICS.ios,
      'apns-priority': '5',
      'apns-expiration': String(Math.floor(server.clock.now() / 1000) + 600),
      'apns-id': push?.apns_id,
      'apns-collapse-id': 'garage-door',
    });
    expect(push?.payload).toEqual({
      aps: {
        alert: { title: 'Garage', subtitle: 'Side door', body: 'Door left open' },
        'thread-id': 'house',
        'interruption-level': 'passive',
        'mutable-content': 1,
      },
      foxbell: {
        id,
        sender: 'Garage bot',
        scene: 'garage',
        scene_version: 1,
        scene_params: { doorState: 'opening' },
        bell_color: '#AA00CC',
        url: 'https://example.com/cam',
        url_title: 'Camera',
        image: 'https://example.com/door.jpg',
      },
    });
  });

  it('sends time-sensitive levels at priority 10 with their interruption level', async () => {
    const server = shared();
    const account = await createAccount(server);
    await sendAndDeliver(server, account.token, { message: 'x', level: 2, target: 'watch' });
    const [push] = server.sim.received();
    expect(push?.headers['apns-priority']).toBe('10');
    expect((push?.payload as { aps: Record<string, unknown> } | undefined)?.aps['interruption-level']).toBe(
      'time-sensitive',
    );
  });

  it('shortens a message that would take the push over 4 KB, and keeps the full text in the inbox', async () => {
    const server = shared();
    const account = await createAccount(server);
    const message = `${'é\n'.repeat(1300)}end`;
    const id = await sendAndDeliver(server, account.token, {
      message,
      url: `https://example.com/${'a'.repeat(1500)}`,
      target: 'iphone',
    });
    const [push] = server.sim.received();
    expect(push?.status).toBe(200);
    const payload = push?.payload as { aps: { alert: { body: string } }; foxbell: Record<string, unknown> };
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(4096);
    expect(payload.aps.alert.body.endsWith('…')).toBe(true);
    expect(message.startsWith(payload.aps.alert.body.slice(0, -1))).toBe(true);
    expect(payload.foxbell.truncated).toBe(true);
    expect(payload.foxbell.url).toBe(`https://example.com/${'a'.repeat(1500)}`);
    const inbox = await server.request('GET', '/v1/inbox', { token: account.key });
    expect(inbox.body.items[0].id).toBe(id);
    expect(inbox.body.items[0].message).toBe(message);
  });

  it('counts a send once against the quota however many devices it reaches', async () => {
    const server = shared();
    const account = await createAccount(server);
    await sendAndDeliver(server, account.token, { message: 'one' });
    expect(server.sim.received()).toHaveLength(3);
    const next = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'two' },
    });
    expect(next.headers.get('x-ratelimit-remaining')).toBe('9998');
    // Delivered, so that the next test's worker finds nothing of this one waiting.
    await server.worker.tick();
  });
});

describe('routing a target', () => {
  async function withDevices(devices: [string, string, boolean?][]) {
    const server = shared();
    const account = await createAccount(server);
    for (const device of account.devices) {
      await server.request('DELETE', `/v1/devices/${device.id}`, { token: account.key });
    }
    const registered: { id: string; name: string; push_token: string }[] = [];
    for (const [index, [name, platform, inAuto]] of devices.entries()) {
      const push_token = (index + 1).toString(16).padStart(64, 'c');
      const reply = await server.request('POST', '/v1/devices', {
        token: account.key,
        json: { name, platform, push_token, ...(inAuto === undefined ? {} : { in_auto: inAuto }) },
      });
      expect(reply.status, reply.text).toBe(201);
      registered.push({ id: reply.body.id, name, push_token });
    }
    const reached = async (target: string | undefined) => {
      server.sim.reset();
      const id = await sendAndDeliver(server, account.token, { message: 'm', ...(target ? { target } : {}) });
      const record = await statusOf(server, account.token, id);
      const names = server.sim
        .received()
        .map((push) => registered.find((device) => device.push_token === push.push_token)?.name);
      return { names, status: record.status, reason: record.reason };
    };
    return { server, account, registered, reached };
  }

  it('reaches devices by keyword, exact name and id, and drops with no_matching_device otherwise', async () => {
    const { registered, reached } = await withDevices([
      ['Phone', 'ios'],
      ['Old phone', 'ios', false],
      ['Wrist', 'watchos'],
      ['Twin', 'visionos'],
      ['Twin', 'ios'],
      ['ios', 'watchos', false],
    ]);
    expect((await reached(undefined)).names).toEqual(['Phone', 'Wrist', 'Twin', 'Twin']);
    expect((await reached('auto')).names).toEqual(['Phone', 'Wrist', 'Twin', 'Twin']);
    expect((await reached('iphone')).names).toEqual(['Phone', 'Old phone', 'Twin']);
    expect((await reached('watch')).names).toEqual(['Wrist', 'ios']);
    expect((await reached('vision')).names).toEqual(['Twin']);
    expect((await reached('Old phone')).names).toEqual(['Old phone']);
    // `ios` is a name here, not a keyword: only the device so named.
    expect((await reached('ios')).names).toEqual(['ios']);
    expect((await reached(registered[2]?.id)).names).toEqual(['Wrist']);
    expect(await reached('Twin')).toEqual({ names: [], status: 'dropped', reason: 'no_matching_device' });
    expect(await reached('phone')).toEqual({ names: [], status: 'dropped', reason: 'no_matching_device' });
    expect(await reached('watchos')).toEqual({ names: [], status: 'dropped', reason: 'no_matching_device' });
  });

  it("uses the token's default target when the send names none", async () => {
    const { server, account, reached } = await withDevices([
      ['Phone', 'ios'],
      ['Wrist', 'watchos'],
    ]);
    const watchToken = await createToken(server, account.key, { default_target: 'watch' });
    server.sim.reset();
    await sendAndDeliver(server, watchToken, { message: 'to the wrist' });
    expect(server.sim.received().map((push) => push.headers['apns-topic'])).toEqual([TOPICS.watchos]);
    expect((await reached(undefined)).names).toEqual(['Phone', 'Wrist']);
  });

  it('drops with no_matching_device when the person has no active device', async () => {
    const { server, account } = await withDevices([]);
    const id = await sendAndDeliver(server, account.token, { message: 'nobody home' });
    expect(await statusOf(server, account.token, id)).toEqual({
      id,
      status: 'dropped',
      reason: 'no_matching_device',
      destinations: [],
      handled: [],
    });
  });
});

describe('attempts, retries and deadlines', () => {
  it('retries APNs 503, 429, 500 and a reset stream after exactly 2, 4, 8 and 16 seconds, then stops at accepted', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, [
      { status: 503, reason: 'ServiceUnavailable' },
      { status: 429, reason: 'TooManyRequests' },
      { status: 500, reason: 'InternalServerError' },
      { reset: true },
    ]);
    const start = server.clock.now();
    const id = await sendAndDeliver(server, account.token, { message: 'flaky', target: 'iphone' });
    for (const wait of [2000, 4000, 8000, 16_000]) {
      server.clock.advance(wait - 1);
      await server.worker.tick();
      const before = pushesTo(server, iphone).length;
      server.clock.advance(1);
      await server.worker.tick();
      expect(pushesTo(server, iphone).length).toBe(before + 1);
    }
    expect(pushesTo(server, iphone).map((push) => [push.status, Date.parse(push.at) - start])).toEqual([
      [503, 0],
      [429, 2000],
      [500, 6000],
      [0, 14_000],
      [200, 30_000],
    ]);
    // Every attempt carries the destination's one apns-id.
    expect(new Set(pushesTo(server, iphone).map((push) => push.apns_id)).size).toBe(1);
    const record = await statusOf(server, account.token, id);
    expect(record.status).toBe('sent_to_push');
    expect(record.destinations).toEqual([
      {
        name: "Ana's iPhone",
        platform: 'ios',
        state: 'accepted',
        push_status: 200,
        updated_at: new Date(start + 30_000).toISOString(),
      },
    ]);
  });

  it('marks a destination failed_permanent after 5 attempts, with the last push status', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, Array(6).fill({ status: 503, reason: 'ServiceUnavailable' }));
    const id = await sendAndDeliver(server, account.token, { message: 'never', target: 'iphone' });
    for (let i = 0; i < 6; i++) {
      server.clock.advance(16_000);
      await server.worker.tick();
    }
    expect(pushesTo(server, iphone)).toHaveLength(5);
    const record = await statusOf(server, account.token, id);
    expect(record.status).toBe('accepted');
    expect(record.destinations[0]).toMatchObject({
      state: 'failed_permanent',
      push_status: 503,
      reason: 'attempts_exhausted',
    });
    expect(warningsOf(server)).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: iphone.id,
        provider: 'apns',
        reason: 'attempts_exhausted',
        push_status: 503,
        push_reason: 'ServiceUnavailable',
      }),
    ]);
  });

  it.each([
    [400, 'BadDeviceToken'],
    [400, 'DeviceTokenNotForTopic'],
    [403, 'InvalidProviderToken'],
    [404, 'BadPath'],
    [405, 'MethodNotAllowed'],
    [413, 'PayloadTooLarge'],
  ])('stops after one attempt on APNs %i %s', async (status, reason) => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, [{ status, reason }]);
    const id = await sendAndDeliver(server, account.token, { message: 'refused', target: 'iphone' });
    server.clock.advance(60_000);
    await server.worker.tick();
    expect(pushesTo(server, iphone)).toHaveLength(1);
    const record = await statusOf(server, account.token, id);
    expect(record.destinations[0]).toMatchObject({
      state: 'failed_permanent',
      push_status: status,
      reason: 'refused',
    });
    // The device stays: BadDeviceToken is what every token gets from the wrong environment.
    const devices = await server.request('GET', '/v1/devices', { token: account.token });
    expect(devices.body.devices).toHaveLength(3);
    expect(warningsOf(server)).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: iphone.id,
        provider: 'apns',
        reason: 'refused',
        push_status: status,
        push_reason: reason,
      }),
    ]);
  });

  it('stops pushing for 60 s after APNs rejects the credential, so waiting sends are not spent on it', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, [{ status: 403, reason: 'InvalidProviderToken' }]);
    await sendAndDeliver(server, account.token, { message: 'refused', target: 'iphone' });
    const waiting = await sendAndDeliver(server, account.token, { message: 'waits', target: 'iphone' });
    expect(pushesTo(server, iphone)).toHaveLength(1);
    server.clock.advance(59_999);
    await server.worker.tick();
    expect(pushesTo(server, iphone)).toHaveLength(1);
    server.clock.advance(1);
    await server.worker.tick();
    expect(pushesTo(server, iphone).map((push) => push.status)).toEqual([403, 200]);
    expect((await statusOf(server, account.token, waiting)).destinations[0]).toMatchObject({
      state: 'accepted',
      push_status: 200,
    });
  });

  it('deactivates a device on 410 Unregistered: it leaves the device list and auto', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const [iphone, watch] = account.devices as [Account['devices'][number], Account['devices'][number]];
    server.clock.advance(500);
    server.sim.unregisterToken(iphone.push_token, server.clock.now());
    server.clock.advance(500);
    const id = await sendAndDeliver(server, account.token, { message: 'gone' });
    const record = await statusOf(server, account.token, id);
    expect(record.status).toBe('sent_to_push');
    expect(record.destinations[0]).toMatchObject({
      platform: 'ios',
      state: 'failed_permanent',
      push_status: 410,
      reason: 'gone',
    });
    const devices = await server.request('GET', '/v1/devices', { token: account.token });
    expect(devices.body.devices.map((device: { name: string }) => device.name)).toEqual([
      "Ana's Watch",
      "Ana's Vision Pro",
    ]);
    const all = await server.request('GET', '/v1/devices', { token: account.key });
    expect(all.body.devices[0]).toMatchObject({
      id: iphone.id,
      active: false,
      inactive_reason: 'unregistered',
    });
    expect(warningsOf(server)).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: iphone.id,
        provider: 'apns',
        reason: 'gone',
        push_status: 410,
        push_reason: 'Unregistered',
      }),
      {
        level: 40,
        msg: 'a push service made a device inactive',
        device_id: iphone.id,
        provider: 'apns',
        inactive_reason: 'unregistered',
        notification_id: id,
        push_status: 410,
      },
    ]);
    server.sim.reset();
    await sendAndDeliver(server, account.token, { message: 'after' });
    expect(server.sim.received().map((push) => push.push_token)).toEqual([
      watch.push_token,
      account.devices[2]?.push_token,
    ]);
  });

  it('skips what still waits for a device removed through the management API', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, [{ status: 503, reason: 'ServiceUnavailable' }]);
    const start = server.clock.now();
    const id = await sendAndDeliver(server, account.token, { message: 'waiting', target: 'iphone' });
    server.clock.advance(1000);
    const removed = await server.request('DELETE', `/v1/devices/${iphone.id}`, { token: account.key });
    expect(removed.status).toBe(204);
    const listed = await server.request('GET', '/v1/devices', { token: account.key });
    expect(listed.body.devices[0]).toMatchObject({
      id: iphone.id,
      active: false,
      inactive_reason: 'removed',
    });
    server.clock.advance(60_000);
    await server.worker.tick();
    expect(pushesTo(server, iphone)).toHaveLength(1);
    expect(await statusOf(server, account.token, id)).toEqual({
      id,
      status: 'accepted',
      destinations: [
        {
          name: "Ana's iPhone",
          platform: 'ios',
          state: 'skipped',
          push_status: 503,
          updated_at: new Date(start + 1000).toISOString(),
        },
      ],
      handled: [],
    });
  });

  it('keeps a device whose push token was registered after the 410 timestamp', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, [
      { status: 410, reason: 'Unregistered', timestamp: server.clock.now() - 1 },
    ]);
    const id = await sendAndDeliver(server, account.token, { message: 'stale 410', target: 'iphone' });
    const devices = await server.request('GET', '/v1/devices', { token: account.token });
    expect(devices.body.devices).toHaveLength(3);
    // The push failed, and is said to; the device was not made inactive, and nothing says it was.
    expect(warningsOf(server).map((line) => [line.msg, line.notification_id, line.reason])).toEqual([
      ['a push will not arrive', id, 'gone'],
    ]);
  });

  it('drops with expired when ttl runs out before the first attempt', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'late', ttl: 1 },
    });
    server.clock.advance(1000);
    await server.worker.tick();
    expect(server.sim.received()).toEqual([]);
    const record = await statusOf(server, account.token, reply.body.id);
    expect(record).toMatchObject({ status: 'dropped', reason: 'expired', destinations: [] });
  });

  it('expires a destination whose next attempt would come after the deadline, and attempts nothing after it', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, Array(3).fill({ status: 503, reason: 'ServiceUnavailable' }));
    const start = server.clock.now();
    const id = await sendAndDeliver(server, account.token, {
      message: 'short-lived',
      ttl: 5,
      target: 'iphone',
    });
    server.clock.advance(2000);
    await server.worker.tick();
    expect(pushesTo(server, iphone)).toHaveLength(2);
    server.clock.advance(2999);
    await server.worker.tick();
    expect((await statusOf(server, account.token, id)).destinations[0].state).toBe('pending');
    server.clock.advance(1);
    await server.worker.tick();
    server.clock.advance(60_000);
    await server.worker.tick();
    expect(pushesTo(server, iphone)).toHaveLength(2);
    expect(await statusOf(server, account.token, id)).toEqual({
      id,
      status: 'dropped',
      reason: 'expired',
      destinations: [
        {
          name: "Ana's iPhone",
          platform: 'ios',
          state: 'expired',
          push_status: 503,
          reason: 'expired',
          updated_at: new Date(start + 5000).toISOString(),
        },
      ],
      handled: [],
    });
  });

  it("fails at once, tls, when APNs' certificate is not trusted (no --apns-ca): one attempt, the TLS code logged", async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    // A client that does not trust the simulator's CA, as a server given --apns-url without --apns-ca.
    const untrusting = new ApnsClient({ url: server.sim.url, key: PROVIDER_KEY, clock: server.clock });
    const worker = server.addWorker(new ApnsTransport(untrusting, TOPICS));
    try {
      const reply = await server.request('POST', '/v1/notifications', {
        token: account.token,
        json: { message: 'untrusted', target: 'iphone' },
      });
      await worker.tick();
      server.clock.advance(16_000);
      await worker.tick();
      expect(server.sim.received()).toEqual([]);
      const record = await statusOf(server, account.token, reply.body.id);
      expect(record.destinations).toEqual([
        {
          name: "Ana's iPhone",
          platform: 'ios',
          state: 'failed_permanent',
          reason: 'tls',
          updated_at: expect.any(String),
        },
      ]);
      expect(warningsOf(server)).toEqual([
        willNotArrive({
          notification_id: reply.body.id,
          device_id: iphone.id,
          provider: 'apns',
          reason: 'tls',
          tls_code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
        }),
      ]);
    } finally {
      await untrusting.close();
    }
  });

  it('drops with token_expired a send whose token expired before delivery started', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const expiresAt = new Date(server.clock.now() + 1000).toISOString();
    const token = await createToken(server, account.key, { expires_at: expiresAt });
    const reply = await server.request('POST', '/v1/notifications', { token: token, json: { message: 'm' } });
    expect(reply.status).toBe(202);
    server.clock.advance(1000);
    await server.worker.tick();
    const record = await server.store.getNotification(reply.body.id);
    expect([record?.status, record?.reason]).toEqual(['dropped', 'token_expired']);
    expect(server.sim.received()).toEqual([]);
  });

  it('drops with token_revoked a send whose token was revoked before delivery started', async () => {
    const server = shared();
    const account = await createAccount(server);
    const tokens = await server.request('GET', '/v1/tokens', { token: account.key });
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'm' },
    });
    await server.request('DELETE', `/v1/tokens/${tokens.body.tokens[0].id}`, { token: account.key });
    await server.worker.tick();
    const record = await server.store.getNotification(reply.body.id);
    expect([record?.status, record?.reason, record?.destinations]).toEqual(['dropped', 'token_revoked', []]);
    expect(server.sim.received()).toEqual([]);
  });
});

describe('tags', () => {
  it("supersedes a tagged destination still waiting on a device with another sender's newer send, only on the devices it reaches", async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const other = await createToken(server, account.key, { name: 'Other sender' });
    const [iphone, watch] = account.devices as [Account['devices'][number], Account['devices'][number]];
    server.sim.script(iphone.push_token, [{ status: 503, reason: 'ServiceUnavailable' }]);
    server.sim.script(watch.push_token, [{ status: 503, reason: 'ServiceUnavailable' }]);
    const first = await sendAndDeliver(server, account.token, { message: 'Build 1 running', tag: 'build' });
    const second = await sendAndDeliver(server, other, {
      message: 'Build 1 passed',
      tag: 'build',
      target: 'iphone',
    });
    server.clock.advance(2000);
    await server.worker.tick();

    const old = await statusOf(server, account.token, first);
    expect(old.destinations.map((d: { platform: string; state: string }) => [d.platform, d.state])).toEqual([
      ['ios', 'superseded'],
      ['watchos', 'accepted'],
      ['visionos', 'accepted'],
    ]);
    expect(bodiesPushedTo(server, iphone)).toEqual([
      [503, 'Build 1 running', 'build'],
      [200, 'Build 1 passed', 'build'],
    ]);
    const newer = await server.store.getNotification(second);
    expect(newer?.destinations.map((d) => d.state)).toEqual(['accepted']);
  });

  it('supersedes a retry of a tagged push instead of sending it over a newer send of its tag routed while it was in flight', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    // The older push is still out (its response held back) when the newer one is routed and sent.
    // The hold is real time (the simulator's), so it is long enough for the newer send's route and
    // push on a loaded machine: 300 ms was not, with two files running at once.
    server.sim.script(iphone.push_token, [{ status: 503, reason: 'ServiceUnavailable', delay_ms: 2000 }]);
    const older = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'Deploy running', tag: 'deploy', target: 'iphone' },
    });
    const olderDelivery = server.worker.tick();
    server.clock.advance(1);
    const newer = await sendAndDeliver(server, account.token, {
      message: 'Deploy done',
      tag: 'deploy',
      target: 'iphone',
    });
    await olderDelivery;
    expect((await statusOf(server, account.token, older.body.id)).destinations[0]).toMatchObject({
      state: 'pending',
      push_status: 503,
    });

    server.clock.advance(2000);
    await server.worker.tick();
    // Recorded as responded: the held-back 503 after the 200. Nothing was pushed after it.
    expect(bodiesPushedTo(server, iphone)).toEqual([
      [200, 'Deploy done', 'deploy'],
      [503, 'Deploy running', 'deploy'],
    ]);
    expect((await statusOf(server, account.token, older.body.id)).destinations[0]).toMatchObject({
      state: 'superseded',
      push_status: 503,
    });
    expect((await statusOf(server, account.token, newer)).destinations[0]).toMatchObject({
      state: 'accepted',
    });
    expect(await server.store.nextDeliveryAt()).toBeUndefined();
  });

  it('sends a tagged update to a device already holding the old one with the tag as apns-collapse-id', async () => {
    const server = shared();
    const account = await createAccount(server);
    await sendAndDeliver(server, account.token, { message: 'v1', tag: 'deploy', target: 'watch' });
    await sendAndDeliver(server, account.token, { message: 'v2', tag: 'deploy', target: 'watch' });
    expect(server.sim.received().map((push) => [push.status, push.headers['apns-collapse-id']])).toEqual([
      [200, 'deploy'],
      [200, 'deploy'],
    ]);
  });
});

describe('opened and cleared', () => {
  it('moves status to opened, then cleared, and fills handled', async () => {
    const server = shared();
    const account = await createAccount(server);
    const id = await sendAndDeliver(server, account.token, { message: 'tap me', target: 'iphone' });
    const device = account.devices[0] as Account['devices'][number];
    for (const action of ['opened', 'cleared']) {
      const reply = await server.request('POST', `/v1/notifications/${id}/events`, {
        token: account.key,
        json: { device_id: device.id, action },
      });
      expect(reply.status, reply.text).toBe(204);
      expect((await statusOf(server, account.token, id)).status).toBe(action);
    }
    expect((await statusOf(server, account.token, id)).handled).toHaveLength(2);
  });
});

describe('when delivery next has work', () => {
  it('is the earliest of the queue, waiting attempts, deadlines and leases, even when some of them are empty', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    expect(await server.store.nextDeliveryAt()).toBeUndefined();
    const start = server.clock.now();
    await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'm', target: 'iphone' },
    });
    // Queued, nothing routed, nothing leased.
    expect(await server.store.nextDeliveryAt()).toBe(start);
    server.sim.script(account.devices[0]?.push_token as string, [
      { status: 503, reason: 'ServiceUnavailable' },
    ]);
    await server.worker.tick();
    // The queue is empty and nothing is leased: the retry 2 s later is next.
    expect(await server.store.nextDeliveryAt()).toBe(start + 2000);
    server.clock.advance(2000);
    await server.worker.tick();
    expect(await server.store.nextDeliveryAt()).toBeUndefined();
  });
});

describe('workers sharing a store', () => {
  it('takes over the destinations of a worker that died mid-push once its lease runs out, and loses nothing', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const pushed: PushDestination[] = [];
    // A worker whose pushes never come back: it died with its leases held.
    const dead = server.addWorker({
      push: (destination) => {
        pushed.push(destination);
        return new Promise(() => {});
      },
      close: async () => {},
    });
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'm' },
    });
    void dead.tick();
    await vi.waitFor(() => expect(pushed).toHaveLength(3));

    await server.worker.tick();
    expect(server.sim.received()).toEqual([]);
    server.clock.advance(60_000);
    await server.worker.tick();
    const record = await statusOf(server, account.token, reply.body.id);
    expect(record.status).toBe('sent_to_push');
    expect(record.destinations.map((d: { state: string }) => d.state)).toEqual([
      'accepted',
      'accepted',
      'accepted',
    ]);
    // The takeover reuses each destination's apns-id.
    expect(
      server.sim
        .received()
        .map((push) => push.apns_id)
        .sort(),
    ).toEqual(pushed.map((destination) => destination.pushId).sort());
  });

  it('keeps what a worker recorded of its batch when it dies mid-batch, and pushes the rest once more, with the same apns-ids', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const [iphone, watch, vision] = account.devices as [
      Account['devices'][number],
      Account['devices'][number],
      Account['devices'][number],
    ];
    // The dying worker's batch: the iPhone's pushes are answered and recorded; the Watch's reach
    // APNs but the worker dies before their answers are recorded; the Vision Pro's never leave.
    const dying = server.addWorker({
      push: (destination) => {
        if (destination.address.key === vision.push_token) return new Promise(() => {});
        const answer = server.transport.push(destination);
        return destination.address.key === iphone.push_token ? answer : new Promise(() => {});
      },
      close: async () => {},
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const reply = await server.request('POST', '/v1/notifications', {
        token: account.token,
        json: { message: `m${i}` },
      });
      expect(reply.status, reply.text).toBe(202);
      ids.push(reply.body.id);
    }
    void dying.tick();
    const statesOf = async () =>
      Promise.all(
        ids.map(async (id) =>
          (await statusOf(server, account.token, id)).destinations.map((d: { state: string }) => d.state),
        ),
      );
    await vi.waitFor(async () => {
      expect(pushesTo(server, watch)).toHaveLength(3);
      expect(await statesOf()).toEqual(Array(3).fill(['accepted', 'sending', 'sending']));
    });
    const apnsIdsOf = (device: Account['devices'][number]) =>
      pushesTo(server, device)
        .map((push) => push.apns_id)
        .sort();
    const watchIds = apnsIdsOf(watch);

    // Its leases hold until they run out: nothing is taken over before.
    await server.worker.tick();
    expect(server.sim.received()).toHaveLength(6);
    server.clock.advance(60_000);
    await server.worker.tick();
    expect(await statesOf()).toEqual(Array(3).fill(['accepted', 'accepted', 'accepted']));
    for (const id of ids) expect((await statusOf(server, account.token, id)).status).toBe('sent_to_push');
    // Pushed again: only the Watch's, whose answers died with the worker, each once more with its
    // apns-id; no more than the six leases it held. The recorded ones are not pushed again.
    expect(pushesTo(server, iphone)).toHaveLength(3);
    expect(apnsIdsOf(watch)).toEqual([...watchIds, ...watchIds].sort());
    expect(new Set(watchIds).size).toBe(3);
    expect(pushesTo(server, vision)).toHaveLength(3);
    expect(server.sim.received().every((push) => push.status === 200)).toBe(true);
  });

  it("fails a destination whose last attempt's worker died, and the worker that finds it says so and counts it", async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const iphone = account.devices[0] as Account['devices'][number];
    server.sim.script(iphone.push_token, Array(4).fill({ status: 503, reason: 'ServiceUnavailable' }));
    const id = await sendAndDeliver(server, account.token, { message: 'm', target: 'iphone' });
    for (let retry = 0; retry < 3; retry++) {
      server.clock.advance(16_000);
      await server.worker.tick();
    }
    expect(pushesTo(server, iphone)).toHaveLength(4);
    // The fifth attempt goes to a worker that dies with it.
    let held = false;
    const dead = server.addWorker({
      push: () => {
        held = true;
        return new Promise(() => {});
      },
      close: async () => {},
    });
    server.clock.advance(16_000);
    void dead.tick();
    await vi.waitFor(() => expect(held).toBe(true));
    const metrics = new Metrics(server.store, server.clock, PROVIDER_IDS);
    const finder = server.addWorker(server.transport, { metrics });
    server.clock.advance(60_000);
    await finder.tick();
    expect(pushesTo(server, iphone)).toHaveLength(4);
    expect((await statusOf(server, account.token, id)).destinations[0]).toMatchObject({
      state: 'failed_permanent',
      push_status: 503,
      reason: 'attempts_exhausted',
    });
    expect(warningsOf(server)).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: iphone.id,
        provider: 'apns',
        reason: 'attempts_exhausted',
        push_status: 503,
        error: 'the lease of its last attempt ran out',
      }),
    ]);
    expect(await metrics.registry.getSingleMetricAsString('foxbell_push_failures_total')).toContain(
      'foxbell_push_failures_total{provider="apns",reason="attempts_exhausted"} 1',
    );
  });

  it('keeps a slow push its own while its worker lives: the lease is renewed, never taken over', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const answers: ((outcome: PushOutcome) => void)[] = [];
    // The slow worker's store, telling the test each time it has renewed its leases.
    let renewals = 0;
    const store = new Proxy(server.store, {
      get(target, name, receiver) {
        if (name !== 'renewLeases') return Reflect.get(target, name, receiver);
        return async (...args: Parameters<typeof target.renewLeases>) => {
          await target.renewLeases(...args);
          renewals += 1;
        };
      },
    });
    const slow = server.addWorker(
      { push: () => new Promise((resolve) => answers.push(resolve)), close: async () => {} },
      { store },
    );
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'm', target: 'iphone' },
    });
    const pass = slow.tick();
    await vi.waitFor(() => expect(answers).toHaveLength(1));
    // A minute of the default lease's 6 s: the slow worker renews as it goes (each of its passes
    // renews once a third of the lease has passed), and the other worker finds nothing to take.
    for (let second = 0; second < 60; second += 3) {
      server.clock.advance(3_000);
      // A pass of the slow worker, which renews first; its tick resolves only once its push is
      // responded, so the test waits for the renewal itself.
      const before = renewals;
      void slow.tick();
      await vi.waitFor(() => expect(renewals).toBe(before + 1));
      await server.worker.tick();
    }
    expect(server.sim.received()).toEqual([]);
    (answers[0] as (outcome: PushOutcome) => void)({
      verdict: 'accepted',
      status: 200,
      deactivateDevice: null,
      pauseCredential: false,
    });
    await pass;
    const record = await statusOf(server, account.token, reply.body.id);
    expect([record.status, record.destinations.map((d: { state: string }) => d.state)]).toEqual([
      'sent_to_push',
      ['accepted'],
    ]);
  });

  it('hands pushes still in flight back at once when a stop runs out of time, uncounted', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    let pushing = false;
    const stuck = server.addWorker({
      push: () => {
        pushing = true;
        return new Promise(() => {});
      },
      close: async () => {},
    });
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'm', target: 'iphone' },
    });
    void stuck.tick();
    await vi.waitFor(() => expect(pushing).toBe(true));
    await stuck.stop(10);
    await server.worker.tick();
    expect(server.sim.received().map((push) => push.status)).toEqual([200]);
    const record = await server.store.getNotification(reply.body.id);
    expect(record?.destinations.map((d) => d.state)).toEqual(['accepted']);
  });
});

describe('while the database is out of reach', () => {
  it('says so once when it is lost and once when it is back, not on every poll, and delivers after', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    let down = true;
    let polls = 0;
    let pollWaiter: { target: number; resolve: () => void } | undefined;
    const store = Object.assign(Object.create(server.store), {
      claimDestinations: (options: Parameters<typeof server.store.claimDestinations>[0]) => {
        polls += 1;
        if (pollWaiter && polls >= pollWaiter.target) pollWaiter.resolve();
        if (down)
          return Promise.reject(
            Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
          );
        return server.store.claimDestinations(options);
      },
    });
    const lines: string[] = [];
    let back: () => void = () => {};
    const isBack = new Promise<void>((resolve) => {
      back = resolve;
    });
    const worker = server.addWorker(server.transport, {
      store,
      pollMs: 5,
      log: {
        error: (message) => lines.push(`error: ${message}`),
        warn: (message) => lines.push(`warn: ${message}`),
        info: (message) => {
          lines.push(`info: ${message}`);
          back();
        },
      },
    });
    const polled = (count: number) =>
      new Promise<void>((resolve) => {
        pollWaiter = { target: polls + count, resolve };
      });
    worker.start();
    await polled(10);
    const reply = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'after the outage', target: 'iphone' },
    });
    down = false;
    await isBack;
    await vi.waitFor(() => expect(server.sim.received().map((push) => push.status)).toEqual([200]));
    await worker.stop();
    expect(lines).toEqual([
      'error: the database cannot be reached: delivery waits for it, looking every poll',
      'info: the database responds again: delivery goes on',
    ]);
    expect((await server.store.getNotification(reply.body.id))?.status).toBe('sent_to_push');
  });
});
