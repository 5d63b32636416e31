import { request as httpRequest } from 'node:http';
import { LocalPushService, type Subscription, subscriptionAt } from '@foxbell/test-support/web-push-service';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../../src/delivery/web-push/address-guard.js';
import { type PushHosts, parsePushHosts } from '../../../src/delivery/web-push/hosts.js';
import { webPushProvider } from '../../../src/delivery/web-push/provider.js';
import { VapidKeySource } from '../../../src/delivery/web-push/vapid.js';
import { DeliveryWorker } from '../../../src/delivery/worker.js';
import { deliveryLogOf } from '../../../src/main/start-delivery.js';
import { Metrics } from '../../../src/metrics/metrics.js';
import {
  ADMIN_KEY,
  createToken,
  expectError,
  forAll,
  type LogLine,
  openServer,
  type ServerOptions,
  serverForAll,
  startServer,
  type TestServer,
  warningsOf,
  willNotArrive,
} from '../../helpers.js';

/**
 * Web Push delivery end to end on each store: the real app and worker, the `web-push` library's
 * encryption and VAPID signature, and a local push service that checks both as a real one would.
 */

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

function hostsOf(text: string): PushHosts {
  const parsed = parsePushHosts(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.hosts;
}

interface WebPushServer extends TestServer {
  push: LocalPushService;
  worker: DeliveryWorker;
  /** The worker's metrics. */
  pushMetrics: Metrics;
  /** The warnings logged since the server started, as the operator reads them (without time, pid, host). */
  warnings(): LogLine[];
  /** The push failures counted, as `provider reason count` lines. */
  failuresCounted(): Promise<string[]>;
  /** An account with one send token and no device yet. */
  account(): Promise<{ key: string; token: string }>;
  /** A Web Push device of the account, subscribed with the local push service. */
  subscribe(accountKey: string, name?: string): Promise<{ id: string; subscription: Subscription }>;
  send(token: string, json: Record<string, unknown>): Promise<string>;
  statusOf(token: string, id: string): Promise<{ status: string; destinations: Record<string, unknown>[] }>;
}

interface WebPushOptions {
  timeoutMs?: number;
  transportHosts?: string;
  concurrency?: number;
  /** The push service's name in the allowlist and its subscriptions, resolved by `resolve`. */
  named?: { name: string; resolve: Resolver };
  /** Apple's push service's rules as well (the local service's `apple` mode). */
  apple?: boolean;
  /** The VAPID subject the transport signs with. */
  subject?: string;
  /** The server's own address (`--public-url`). */
  publicUrl?: string;
  /** The worker does not trust the push service's certificate (its CA not given). */
  untrusted?: boolean;
}

/** A server with a local push service and a worker driven by hand; closed after each test. */
const startWebPushServer = (options: WebPushOptions = {}) => openWebPushServer(options, startServer, closing);

/**
 * One such server for every test of the `describe` (or file) this is called in, for tests that
 * leave it as they found it: each subscribes devices of its own and reads only their pushes, none
 * moves the clock, scripts a failure or reads the warnings or counts of the whole server.
 */
function webPushServerForAll(options: WebPushOptions = {}): () => WebPushServer {
  return forAll('webPushServerForAll', async () => {
    const closers: (() => Promise<void>)[] = [];
    const web = await openWebPushServer(options, openServer, closers);
    return {
      value: web,
      // The server last, after the worker and the push service, as `startServer`'s is.
      async close() {
        for (const close of closers.reverse()) await close();
        await web.close();
      },
    };
  });
}

async function openWebPushServer(
  options: WebPushOptions,
  start: (options: ServerOptions) => Promise<TestServer>,
  closing: (() => Promise<void>)[],
): Promise<WebPushServer> {
  let serverUrl = '';
  const now = { clock: () => Date.now() };
  const push = await LocalPushService.start({
    vapidKey: async () => (await (await fetch(`${serverUrl}/v1/web-push/key`)).json()).public_key,
    now: () => now.clock(),
    ...(options.apple ? { mode: 'apple' as const } : {}),
  });
  closing.push(() => push.close());
  const port = new URL(push.url).port;
  const host = options.named ? `${options.named.name}:${port}` : push.host;
  const server = await start({
    pushHosts: hostsOf(host),
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
  });
  serverUrl = server.url;
  now.clock = () => server.clock.now();
  // Delivery through the provider as a worker process opens it: its transport, keys and badge.
  const provider = webPushProvider({
    subject: options.subject ?? 'mailto:ops@example.com',
    hosts: hostsOf(options.transportHosts ?? host),
    keeper: server.store,
    clock: server.clock,
    ...(options.untrusted ? {} : { ca: push.ca }),
    ...(options.named ? { resolve: options.named.resolve } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const { transport } = await provider.openTransport();
  closing.push(() => transport.close());
  // The worker logs into the app's log, as a foxbell-server process's does, and counts.
  const pushMetrics = new Metrics(server.store, server.clock, [provider.id]);
  const worker = new DeliveryWorker({
    store: server.store,
    transports: { [provider.id]: transport },
    unreadFor: [provider.id],
    clock: server.clock,
    concurrency: options.concurrency ?? 16,
    log: deliveryLogOf(server.log),
    metrics: pushMetrics,
  });
  closing.push(() => worker.idle());
  const web: WebPushServer = {
    ...server,
    push,
    worker,
    pushMetrics,
    warnings: () => warningsOf(server),
    async failuresCounted() {
      const counter = await pushMetrics.registry.getSingleMetric('foxbell_push_failures_total')?.get();
      return (counter?.values ?? []).map(
        (value) => `${value.labels.provider} ${value.labels.reason} ${value.value}`,
      );
    },
    async account() {
      const account = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: {} });
      return { key: account.body.key, token: await createToken(server, account.body.key, { name: 'CI' }) };
    },
    async subscribe(accountKey, name = 'iPhone') {
      const made = push.subscribe();
      const subscription = options.named
        ? { ...made, endpoint: made.endpoint.replace('127.0.0.1', options.named.name) }
        : made;
      const reply = await server.request('POST', '/v1/devices', {
        token: accountKey,
        json: { name, platform: 'ios', web_push: subscription },
      });
      expect(reply.status, reply.text).toBe(201);
      return { id: reply.body.id, subscription };
    },
    async send(token, json) {
      const reply = await server.request('POST', '/v1/notifications', { token, json });
      expect(reply.status, reply.text).toBe(202);
      await worker.tick();
      return reply.body.id;
    },
    async statusOf(token, id) {
      const reply = await server.request('GET', `/v1/notifications/${id}/status`, { token });
      expect(reply.status, reply.text).toBe(200);
      return reply.body;
    },
  };
  return web;
}

// One plain server, and one with a push service, for the tests that register devices of their own
// and leave the clock; those that move it, script failures or read the whole server's warnings and
// counts start their own.
const plain = serverForAll();
const webPush = webPushServerForAll();

describe('GET /v1/web-push/key', () => {
  it('answers the VAPID public key without a credential: 65 bytes, uncompressed, the same every time', async () => {
    const server = plain();
    const first = await server.request('GET', '/v1/web-push/key');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-request-id')).toMatch(/^req_/);
    expect(Object.keys(first.body)).toEqual(['public_key']);
    const point = Buffer.from(first.body.public_key, 'base64url');
    expect([point.length, point[0]]).toEqual([65, 0x04]);
    expect((await server.request('GET', '/v1/web-push/key')).body).toEqual(first.body);
    // Kept in the database: another process (here, another reader of the store) signs with it.
    expect((await new VapidKeySource(server.store).keys()).publicKey).toBe(first.body.public_key);
  });
});

describe('registering a Web Push device', () => {
  it('takes a PushSubscription.toJSON() in web_push and shows the device as reached by Web Push', async () => {
    const server = webPush();
    const { key } = await server.account();
    const subscription = server.push.subscribe();
    const reply = await server.request('POST', '/v1/devices', {
      token: key,
      json: {
        name: 'iPhone',
        platform: 'ios',
        web_push: { ...subscription, expirationTime: 1_900_000_000_000 },
      },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^dev_/),
      name: 'iPhone',
      platform: 'ios',
      transport: 'web_push',
      in_auto: true,
      active: true,
      created_at: new Date(server.clock.now()).toISOString(),
      // Registered by its account key: no device key, so never seen; not stale while new.
      last_seen_at: null,
      stale: false,
    });
    // The subscription's keys are never shown back.
    expect(reply.text).not.toContain(subscription.keys.auth);
    const again = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'iPhone 2', platform: 'ios', web_push: subscription },
    });
    expectError(again, 409, 'device_exists', 'web_push');
  });

  it('rejects every registration that is not exactly one valid push address, naming the field', async () => {
    const server = webPush();
    const { key } = await server.account();
    const good = server.push.subscribe();
    const heardBefore = server.push.received.length;
    const register = (json: Record<string, unknown>) =>
      server.request('POST', '/v1/devices', {
        token: key,
        json: { name: 'Phone', platform: 'ios', ...json },
      });
    const withEndpoint = (endpoint: string) => ({ web_push: { ...good, endpoint } });
    const withKeys = (keys: Record<string, unknown>) => ({
      web_push: { ...good, keys: { ...good.keys, ...keys } },
    });
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['neither', {}, 'missing_field', 'push_token'],
      ['both', { push_token: 'a'.repeat(64), web_push: good }, 'invalid_field', 'web_push'],
      ['http', withEndpoint(good.endpoint.replace('https:', 'http:')), 'invalid_field', 'web_push.endpoint'],
      [
        'user info',
        withEndpoint(good.endpoint.replace('https://', 'https://me:pw@')),
        'invalid_field',
        'web_push.endpoint',
      ],
      [
        'a host off the list',
        withEndpoint('https://push.example.com/push/1'),
        'invalid_field',
        'web_push.endpoint',
      ],
      [
        'another port',
        withEndpoint(good.endpoint.replace(/:\d+\//, ':1/')),
        'invalid_field',
        'web_push.endpoint',
      ],
      ['not a URL', withEndpoint('push me'), 'invalid_field', 'web_push.endpoint'],
      // PostgreSQL rejected a NUL with a 500; every control character is rejected on both stores.
      ['a NUL', withEndpoint(`${good.endpoint}\u0000`), 'invalid_field', 'web_push.endpoint'],
      [
        'a NUL in the host',
        withEndpoint(good.endpoint.replace('127.0.0.1', '127.0.0.1\u0000')),
        'invalid_field',
        'web_push.endpoint',
      ],
      ['a line feed', withEndpoint(`${good.endpoint}\n`), 'invalid_field', 'web_push.endpoint'],
      [
        'a tab inside',
        withEndpoint(good.endpoint.replace('/push/', '/pu\tsh/')),
        'invalid_field',
        'web_push.endpoint',
      ],
      ['a C1 control', withEndpoint(`${good.endpoint}\u0085`), 'invalid_field', 'web_push.endpoint'],
      ['no endpoint', { web_push: { keys: good.keys } }, 'missing_field', 'web_push.endpoint'],
      [
        'a short p256dh',
        withKeys({ p256dh: good.keys.p256dh.slice(0, 40) }),
        'invalid_field',
        'web_push.keys.p256dh',
      ],
      ['a p256dh off the curve', withKeys({ p256dh: offCurve }), 'invalid_field', 'web_push.keys.p256dh'],
      [
        'a p256dh not base64url',
        withKeys({ p256dh: `${good.keys.p256dh.slice(0, -1)}+` }),
        'invalid_field',
        'web_push.keys.p256dh',
      ],
      [
        'a long auth',
        withKeys({ auth: Buffer.alloc(17).toString('base64url') }),
        'invalid_field',
        'web_push.keys.auth',
      ],
      ['no keys', { web_push: { endpoint: good.endpoint } }, 'missing_field', 'web_push.keys'],
      ['another member', { web_push: { ...good, extra: 1 } }, 'invalid_field', 'web_push.extra'],
      [
        'a string expirationTime',
        { web_push: { ...good, expirationTime: 'soon' } },
        'invalid_field',
        'web_push.expirationTime',
      ],
    ];
    for (const [name, json, code, field] of cases) {
      const reply = await register(json);
      expect([name, reply.status, reply.body?.error?.code, reply.body?.error?.field]).toEqual([
        name,
        code === 'missing_field' || code === 'invalid_field' ? 400 : 0,
        code,
        field,
      ]);
    }
    // Nothing was registered, and the push service heard nothing of any of them.
    expect((await server.request('GET', '/v1/devices', { token: key })).body.devices).toEqual([]);
    expect(server.push.received.slice(heardBefore)).toEqual([]);
  });
});

describe('a NUL in an endpoint', () => {
  it('is 400 invalid_field web_push.endpoint on every route that registers one, on each store', async () => {
    const server = plain();
    const account = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: {} });
    const web_push = subscriptionAt('https://web.push.apple.com/with\u0000nul');
    const body = { name: 'iPhone', platform: 'ios', web_push };
    expectError(
      await server.request('POST', '/v1/devices', { token: account.body.key, json: body }),
      400,
      'invalid_field',
      'web_push.endpoint',
    );
    expectError(
      await server.request('POST', '/v1/link-requests', { json: { ...body, device_id: 'install-with-nul' } }),
      400,
      'invalid_field',
      'web_push.endpoint',
    );
    const link = await server.request('POST', '/v1/link-requests', {
      json: {
        ...body,
        device_id: 'install-fine',
        web_push: subscriptionAt('https://web.push.apple.com/fine'),
      },
    });
    await server.request('POST', '/v1/link-approvals', {
      token: account.body.key,
      json: { code: link.body.code },
    });
    const { device_key } = (
      await server.request('GET', `/v1/link-requests/${link.body.id}`, { token: link.body.secret })
    ).body;
    expectError(
      await server.request('PATCH', '/v1/device', { token: device_key, json: { web_push } }),
      400,
      'invalid_field',
      'web_push.endpoint',
    );
  });
});

describe('one subscription, one device, however its endpoint is spelled', () => {
  it('stores the canonical URL: upper-case scheme and host, decimal, hex and short IPs, spaces, the default port', async () => {
    const server = webPush();
    const { key, token } = await server.account();
    const subscription = server.push.subscribe();
    const { host, port, pathname } = new URL(subscription.endpoint);
    expect(host).toBe(`127.0.0.1:${port}`);
    const first = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'iPhone', platform: 'ios', web_push: subscription },
    });
    expect(first.status, first.text).toBe(201);
    const spellings = [
      `HTTPS://127.0.0.1:${port}${pathname}`,
      `https://2130706433:${port}${pathname}`,
      `https://0x7f000001:${port}${pathname}`,
      `https://127.1:${port}${pathname}`,
      `https://0177.0.0.1:${port}${pathname}`,
      ` https://127.0.0.1:${port}${pathname} `,
    ];
    for (const endpoint of spellings) {
      const web_push = { ...subscription, endpoint };
      const again = await server.request('POST', '/v1/devices', {
        token: key,
        json: { name: 'iPhone again', platform: 'ios', web_push },
      });
      expectError(again, 409, 'device_exists', 'web_push');
      const link = await server.request('POST', '/v1/link-requests', {
        json: { device_id: 'another-install', name: 'iPhone', platform: 'ios', web_push },
      });
      expectError(link, 409, 'device_exists', 'device_id');
    }
    await server.send(token, { message: 'once' });
    expect(server.push.pushesTo(subscription)).toHaveLength(1);
    const devices = (await server.request('GET', '/v1/devices', { token: key })).body.devices;
    expect(devices).toHaveLength(1);
  });

  it("drops the default port and lower-cases Apple's host: one device", async () => {
    const server = plain();
    const account = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: {} });
    const register = (endpoint: string) =>
      server.request('POST', '/v1/devices', {
        token: account.body.key,
        json: { name: 'iPhone', platform: 'ios', web_push: subscriptionAt(endpoint) },
      });
    expect((await register('https://web.push.apple.com:443/QGx1')).status).toBe(201);
    expectError(await register('https://WEB.Push.Apple.COM/QGx1'), 409, 'device_exists', 'web_push');
    // The path is the push service's own: its case is kept.
    expect((await register('https://web.push.apple.com/qgx1')).status).toBe(201);
  });
});

describe('Web Push delivery', () => {
  it('pushes an encrypted, VAPID-signed payload with TTL, Urgency and Topic, and records push_status 201', async () => {
    const server = webPush();
    const { key, token } = await server.account();
    const { subscription } = await server.subscribe(key);
    const published = (await server.request('GET', '/v1/web-push/key')).body.public_key;
    const id = await server.send(token, {
      message: 'Build passed',
      title: 'main',
      scene: 'rocket',
      tag: 'build-main',
      level: 'time-sensitive',
      url: 'https://ci.example.com/1',
      ttl: 600,
    });
    const [push] = server.push.pushesTo(subscription);
    expect(push?.rejection).toBeUndefined();
    expect(push?.status).toBe(201);
    expect([push?.ttl, push?.urgency]).toEqual(['600', 'high']);
    expect(push?.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(push?.claims).toEqual({
      aud: server.push.url,
      exp: Math.floor(server.clock.now() / 1000) + 12 * 3600,
      sub: 'mailto:ops@example.com',
    });
    expect(published).toMatch(/^[A-Za-z0-9_-]{87}$/);
    // No app address is known for a device an account key registered: the service worker shows it.
    expect(push?.payload).toEqual({
      notification: {
        title: 'CI',
        body: 'main\nBuild passed',
        tag: 'build-main',
        silent: false,
        app_badge: 1,
      },
      foxbell: {
        id,
        sender: 'CI',
        title: 'main',
        scene: 'rocket',
        scene_version: expect.any(Number),
        bell_color: 'gold',
        level: 'time-sensitive',
        url: 'https://ci.example.com/1',
      },
    });
    const record = await server.statusOf(token, id);
    expect(record.status).toBe('sent_to_push');
    expect(record.destinations).toEqual([
      {
        name: 'iPhone',
        platform: 'ios',
        state: 'accepted',
        push_status: 201,
        updated_at: new Date(server.clock.now()).toISOString(),
      },
    ]);
  });

  it('sends each level as its Urgency, and the same tag as the same Topic', async () => {
    const server = webPush();
    const { key, token } = await server.account();
    const { subscription } = await server.subscribe(key);
    for (const level of ['passive', 'active', 'time-sensitive']) {
      await server.send(token, { message: level, level, tag: 'deploy' });
    }
    await server.send(token, { message: 'other', tag: 'other' });
    const pushes = server.push.pushesTo(subscription);
    expect(pushes.map((push) => push.urgency)).toEqual(['low', 'normal', 'high', 'normal']);
    expect(new Set(pushes.slice(0, 3).map((push) => push.topic)).size).toBe(1);
    expect(pushes[3]?.topic).not.toBe(pushes[0]?.topic);
    expect(pushes[0]?.payload.notification.silent).toBe(false);
  });

  it('keeps a long message within the 4,096-byte record: cut with an ellipsis, marked truncated', async () => {
    const server = webPush();
    const { key, token } = await server.account();
    const { subscription } = await server.subscribe(key);
    await server.send(token, { message: 'é'.repeat(2000), url: `https://example.com/${'p'.repeat(1900)}` });
    const [push] = server.push.pushesTo(subscription);
    expect(push?.status).toBe(201);
    expect(push?.bodyBytes).toBeLessThanOrEqual(4096);
    expect(push?.payload.foxbell.truncated).toBe(true);
    expect(push?.payload.notification.body).toMatch(/^é+…$/);
  });

  it('retries 429, 5xx and no response on the 2-4-8-16 s schedule, then takes the 201', async () => {
    const server = await startWebPushServer({ timeoutMs: 300 });
    const { key, token } = await server.account();
    const { subscription } = await server.subscribe(key);
    server.push.script(
      subscription,
      { status: 429, retryAfter: 30 },
      { status: 500 },
      { status: 503 },
      { hang: true },
    );
    const start = server.clock.now();
    const id = await server.send(token, { message: 'flaky' });
    for (const wait of [2000, 4000, 8000, 16_000]) {
      server.clock.advance(wait - 1);
      await server.worker.tick();
      const before = server.push.pushesTo(subscription).length;
      server.clock.advance(1);
      await server.worker.tick();
      expect(server.push.pushesTo(subscription).length).toBe(before + 1);
    }
    expect(server.push.pushesTo(subscription).map((push) => [push.status, push.at - start])).toEqual([
      [429, 0],
      [500, 2000],
      [503, 6000],
      [undefined, 14_000],
      [201, 30_000],
    ]);
    expect((await server.statusOf(token, id)).destinations).toEqual([
      {
        name: 'iPhone',
        platform: 'ios',
        state: 'accepted',
        push_status: 201,
        updated_at: new Date(start + 30_000).toISOString(),
      },
    ]);
  });

  it("frees a push's slot within the timeout when a push service trickles its response: the status stands", async () => {
    // One slot: the trickling response held it for good, and another account's push waited behind it.
    const server = await startWebPushServer({ timeoutMs: 500, concurrency: 1 });
    const slow = await server.account();
    const other = await server.account();
    const { subscription: trickling } = await server.subscribe(slow.key);
    const { subscription: waiting } = await server.subscribe(other.key);
    server.push.script(trickling, { status: 201, trickleEveryMs: 50 });
    const first = await server.send(slow.token, { message: 'to a slow push service' });
    const second = await server.send(other.token, { message: 'behind it' });
    await server.worker.tick();
    // The push service took the first (its status came at once): accepted, not pushed again.
    expect(server.push.pushesTo(trickling)).toHaveLength(1);
    expect((await server.statusOf(slow.token, first)).destinations[0]).toMatchObject({
      state: 'accepted',
      push_status: 201,
    });
    expect((await server.statusOf(other.token, second)).destinations[0]).toMatchObject({
      state: 'accepted',
      push_status: 201,
    });
    expect(server.push.pushesTo(waiting)).toHaveLength(1);
  });

  it.each([
    ['this machine', '127.0.0.1'],
    ['a private network', '10.1.2.3'],
    ['link-local (a cloud metadata service)', '169.254.169.254'],
    ['IPv6 loopback', '::1'],
    ['an IPv4-mapped private address', '::ffff:192.168.1.10'],
    ['a private address through NAT64', '64:ff9b::a00:1'],
    ['this machine through 6to4', '2002:7f00:1::1'],
    ['a documentation range (TEST-NET-1)', '192.0.2.10'],
  ])(
    'never connects to an allowed name that resolves to %s: failed_permanent, address_refused, unsent, logged',
    async (_, address) => {
      const resolved: string[] = [];
      const server = await startWebPushServer({
        named: {
          name: 'push.example.net',
          resolve: async (hostname) => {
            resolved.push(hostname);
            return [{ address, family: address.includes(':') ? 6 : 4 }];
          },
        },
      });
      const { key, token } = await server.account();
      const { id: deviceId } = await server.subscribe(key);
      const id = await server.send(token, { message: 'to a name on the allowlist' });
      expect(resolved).toEqual(['push.example.net']);
      expect(server.push.received).toEqual([]);
      const record = await server.statusOf(token, id);
      expect(record.destinations).toEqual([
        {
          name: 'iPhone',
          platform: 'ios',
          state: 'failed_permanent',
          reason: 'address_refused',
          updated_at: expect.any(String),
        },
      ]);
      // The device is not the trouble: it stays active.
      const devices = (await server.request('GET', '/v1/devices', { token: key })).body.devices;
      expect(devices.find((device: { id: string }) => device.id === deviceId)?.active).toBe(true);
      const port = new URL(server.push.url).port;
      expect(server.warnings()).toEqual([
        willNotArrive({
          notification_id: id,
          device_id: deviceId,
          provider: 'web-push',
          reason: 'address_refused',
          host: `push.example.net:${port}`,
          error: `push.example.net resolves to ${address}, not a public address: not connected to`,
        }),
      ]);
      expect(await server.failuresCounted()).toEqual(['web-push address_refused 1']);
    },
  );

  it('gives up after 5 attempts with the last push_status: attempts_exhausted, logged', async () => {
    const server = await startWebPushServer();
    const { key, token } = await server.account();
    const { id: deviceId, subscription } = await server.subscribe(key);
    server.push.script(subscription, ...Array(6).fill({ status: 500 }));
    const id = await server.send(token, { message: 'never' });
    for (let i = 0; i < 6; i++) {
      // Nothing is said while it is still retried: the fifth attempt (the fourth retry) is the last.
      if (i < 4) expect(server.warnings()).toEqual([]);
      server.clock.advance(16_000);
      await server.worker.tick();
    }
    expect(server.push.pushesTo(subscription)).toHaveLength(5);
    const record = await server.statusOf(token, id);
    // The furthest state the send reached is its acceptance; the destination says how it ended.
    expect(record.status).toBe('accepted');
    expect(record.destinations).toEqual([
      {
        name: 'iPhone',
        platform: 'ios',
        state: 'failed_permanent',
        push_status: 500,
        reason: 'attempts_exhausted',
        updated_at: expect.any(String),
      },
    ]);
    expect(server.warnings()).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: deviceId,
        provider: 'web-push',
        reason: 'attempts_exhausted',
        push_status: 500,
        host: server.push.host,
      }),
    ]);
    expect(await server.failuresCounted()).toEqual(['web-push attempts_exhausted 1']);
  });

  it('says why the last attempt got no response: its error, logged', async () => {
    const server = await startWebPushServer({ timeoutMs: 200 });
    const { key, token } = await server.account();
    const { id: deviceId, subscription } = await server.subscribe(key);
    server.push.script(subscription, ...Array(5).fill({ hang: true }));
    const id = await server.send(token, { message: 'into the void' });
    for (let i = 0; i < 4; i++) {
      server.clock.advance(16_000);
      await server.worker.tick();
    }
    expect(server.push.pushesTo(subscription)).toHaveLength(5);
    expect((await server.statusOf(token, id)).destinations[0]).toEqual({
      name: 'iPhone',
      platform: 'ios',
      state: 'failed_permanent',
      reason: 'attempts_exhausted',
      updated_at: expect.any(String),
    });
    expect(server.warnings()).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: deviceId,
        provider: 'web-push',
        reason: 'attempts_exhausted',
        host: server.push.host,
        error: 'TimeoutError',
      }),
    ]);
  });

  it('makes the device inactive on 410 and 404 (its subscription is gone), not on another 4xx, and says so', async () => {
    const server = await startWebPushServer();
    const { key, token } = await server.account();
    const gone = await server.subscribe(key, 'gone');
    const missing = await server.subscribe(key, 'missing');
    const refused = await server.subscribe(key, 'refused');
    server.push.script(gone.subscription, { status: 410 });
    server.push.script(missing.subscription, { status: 404 });
    server.push.script(refused.subscription, { status: 400 });
    const id = await server.send(token, { message: 'Deploy of secret-project finished', title: 'Quiet' });
    const record = await server.statusOf(token, id);
    expect(
      record.destinations.map((destination) => [
        destination.state,
        destination.push_status,
        destination.reason,
      ]),
    ).toEqual([
      ['failed_permanent', 410, 'gone'],
      ['failed_permanent', 404, 'gone'],
      ['failed_permanent', 400, 'refused'],
    ]);
    const devices = (await server.request('GET', '/v1/devices', { token: key })).body.devices;
    expect(
      devices.map((device: Record<string, unknown>) => [device.name, device.active, device.inactive_reason]),
    ).toEqual([
      ['gone', false, 'subscription_gone'],
      ['missing', false, 'subscription_gone'],
      ['refused', true, undefined],
    ]);
    const failed = (deviceId: string, status: number, reason: string) =>
      willNotArrive({
        notification_id: id,
        device_id: deviceId,
        provider: 'web-push',
        reason,
        push_status: status,
        host: server.push.host,
      });
    const madeInactive = (deviceId: string, status: number) => ({
      level: 40,
      msg: 'a push service made a device inactive',
      device_id: deviceId,
      provider: 'web-push',
      inactive_reason: 'subscription_gone',
      notification_id: id,
      push_status: status,
    });
    expect(server.warnings()).toEqual([
      failed(gone.id, 410, 'gone'),
      madeInactive(gone.id, 410),
      failed(missing.id, 404, 'gone'),
      madeInactive(missing.id, 404),
      failed(refused.id, 400, 'refused'),
    ]);
    expect((await server.failuresCounted()).sort()).toEqual(['web-push gone 2', 'web-push refused 1']);
    // Never what the notification says, nor an endpoint's path (a capability) or its keys.
    const logged = JSON.stringify(server.logged());
    for (const { subscription } of [gone, missing, refused]) {
      expect(logged).not.toContain(new URL(subscription.endpoint).pathname);
      expect(logged).not.toContain(subscription.keys.auth);
      expect(logged).not.toContain(subscription.keys.p256dh);
    }
    expect(logged).not.toContain('secret-project');
    expect(logged).not.toContain('Quiet');
  });

  it('expires a push still retrying at its ttl deadline: reason expired, logged', async () => {
    const server = await startWebPushServer();
    const { key, token } = await server.account();
    const { id: deviceId, subscription } = await server.subscribe(key);
    server.push.script(subscription, { status: 500 }, { status: 500 });
    const id = await server.send(token, { message: 'soon stale', ttl: 5 });
    server.clock.advance(2000);
    await server.worker.tick();
    expect(server.push.pushesTo(subscription).map((push) => push.ttl)).toEqual(['5', '3']);
    server.clock.advance(4000);
    await server.worker.tick();
    expect(server.push.pushesTo(subscription)).toHaveLength(2);
    const record = await server.statusOf(token, id);
    expect([record.status, record.destinations]).toEqual([
      'dropped',
      [
        {
          name: 'iPhone',
          platform: 'ios',
          state: 'expired',
          push_status: 500,
          reason: 'expired',
          updated_at: new Date(server.clock.now()).toISOString(),
        },
      ],
    ]);
    expect(server.warnings()).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: deviceId,
        provider: 'web-push',
        reason: 'expired',
        push_status: 500,
      }),
    ]);
    expect(await server.failuresCounted()).toEqual(['web-push expired 1']);
  });

  it('never connects to a push service the allowlist no longer names: failed_permanent, not_allowed, no push, logged', async () => {
    const server = await startWebPushServer({ transportHosts: 'web.push.apple.com' });
    const { key, token } = await server.account();
    const { id: deviceId, subscription } = await server.subscribe(key);
    const id = await server.send(token, { message: 'not there' });
    expect(server.push.pushesTo(subscription)).toEqual([]);
    const record = await server.statusOf(token, id);
    // No push service responded: the destination has no push_status.
    expect(record.destinations).toEqual([
      {
        name: 'iPhone',
        platform: 'ios',
        state: 'failed_permanent',
        reason: 'not_allowed',
        updated_at: new Date(server.clock.now()).toISOString(),
      },
    ]);
    expect(server.warnings()).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: deviceId,
        provider: 'web-push',
        reason: 'not_allowed',
        host: server.push.host,
      }),
    ]);
    expect(await server.failuresCounted()).toEqual(['web-push not_allowed 1']);
  });

  it("fails at once, tls, when the push service's certificate is not trusted: one attempt, the TLS code logged", async () => {
    const server = await startWebPushServer({ untrusted: true });
    const { key, token } = await server.account();
    const { id: deviceId, subscription } = await server.subscribe(key);
    const id = await server.send(token, { message: 'behind a private CA' });
    // The handshake failed: the push service never received it, and it is not tried again.
    server.clock.advance(16_000);
    await server.worker.tick();
    expect(server.push.pushesTo(subscription)).toEqual([]);
    const record = await server.statusOf(token, id);
    expect(record.destinations).toEqual([
      {
        name: 'iPhone',
        platform: 'ios',
        state: 'failed_permanent',
        reason: 'tls',
        updated_at: expect.any(String),
      },
    ]);
    expect(server.warnings()).toEqual([
      willNotArrive({
        notification_id: id,
        device_id: deviceId,
        provider: 'web-push',
        reason: 'tls',
        tls_code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
        host: server.push.host,
      }),
    ]);
    // The device is not the trouble: it stays active.
    const devices = (await server.request('GET', '/v1/devices', { token: key })).body.devices;
    expect(devices.map((device: { active: boolean }) => device.active)).toEqual([true]);
    expect(await server.failuresCounted()).toEqual(['web-push tls 1']);
  });
});

describe("the app's badge (app_badge): what came since its app was last open", () => {
  it("counts the account's notifications since the device key was last used, on the first attempt and on a retry", async () => {
    const server = await startWebPushServer();
    const { key, token } = await server.account();
    const subscription = server.push.subscribe();
    const link = await server.request('POST', '/v1/link-requests', {
      json: { device_id: 'badge-app-0001', name: 'iPhone', platform: 'ios', web_push: subscription },
    });
    await server.request('POST', '/v1/link-approvals', { token: key, json: { code: link.body.code } });
    const { device_key: deviceKey } = (
      await server.request('GET', `/v1/link-requests/${link.body.id}`, { token: link.body.secret })
    ).body;
    const badges = () =>
      server.push.pushesTo(subscription).map((push) => [push.payload.notification.app_badge, push.status]);
    // Never opened: everything of the account counts.
    await server.send(token, { message: 'one' });
    await server.send(token, { message: 'two' });
    expect(badges()).toEqual([
      [1, 201],
      [2, 201],
    ]);
    // The app opens (its key is used): what came before is seen.
    server.clock.advance(60_000);
    await server.request('GET', '/v1/inbox', { token: deviceKey });
    server.clock.advance(1);
    server.push.script(subscription, { status: 500 });
    await server.send(token, { message: 'three' });
    server.clock.advance(2000);
    await server.worker.tick();
    expect(badges().slice(2)).toEqual([
      [1, 500],
      [1, 201],
    ]);
  });
});

let installs = 0;
/**
 * A link request as a browser sends it, byte for byte as to the headers: `Host` and `Origin` are
 * what the client says (a browser on a page of another site, or a client that writes its own).
 * Each from an install of its own: tests share a server.
 */
function requestLinkAs(
  url: string,
  headers: { host: string; origin: string },
  subscription: Subscription,
): Promise<{ status: number; body: { code: string } }> {
  installs += 1;
  const body = JSON.stringify({
    device_id: `app-install-${installs}`,
    name: 'iPhone',
    platform: 'ios',
    web_push: subscription,
  });
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      new URL('/v1/link-requests', url),
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

describe("the page a Declarative Web Push opens (navigate): on the server's own address only", () => {
  const atPublicUrl = webPushServerForAll({ publicUrl: 'https://push.example.com' });
  /** A push to a device linked with `headers`: its notification, as the push service decrypted it. */
  async function pushedAfterLinking(
    server: Awaited<ReturnType<typeof startWebPushServer>>,
    headers: { host: string; origin: string },
  ) {
    const { key, token } = await server.account();
    const subscription = server.push.subscribe();
    const link = await requestLinkAs(server.url, headers, subscription);
    expect(link.status).toBe(201);
    const approved = await server.request('POST', '/v1/link-approvals', {
      token: key,
      json: { code: link.body.code },
    });
    expect(approved.status, approved.text).toBe(201);
    const id = await server.send(token, { message: 'open me' });
    const [push] = server.push.pushesTo(subscription);
    return { id, payload: push?.payload };
  }

  it('never opens another site: a link request saying Host and Origin evil.example stores no page there', async () => {
    const server = atPublicUrl();
    const { payload } = await pushedAfterLinking(server, {
      host: 'evil.example',
      origin: 'https://evil.example',
    });
    // Not the app's origin: the app's service worker shows it, and nothing names evil.example.
    expect(payload.web_push).toBeUndefined();
    expect(payload.notification.navigate).toBeUndefined();
    expect(JSON.stringify(payload)).not.toContain('evil.example');
  });

  it("opens the app's page at --public-url when the app served there links itself, whatever Host the proxy passed", async () => {
    const server = atPublicUrl();
    const { id, payload } = await pushedAfterLinking(server, {
      host: new URL(server.url).host,
      origin: 'https://push.example.com',
    });
    expect(payload.web_push).toBe(8030);
    expect(payload.notification.navigate).toBe(`https://push.example.com/app/?notification=${id}`);
  });

  it('without --public-url, opens no page at all, even for a request whose Origin matches its Host', async () => {
    const server = webPush();
    const { host } = new URL(server.url);
    const { payload } = await pushedAfterLinking(server, { host, origin: `http://${host}` });
    expect(payload.web_push).toBeUndefined();
    expect(payload.notification.navigate).toBeUndefined();
  });
});

describe("Apple's push service, as modelled (what an iPhone's web app subscribes with)", () => {
  const apple = webPushServerForAll({ apple: true });
  it('takes every level, tag and length the server sends: Urgency and Topic as Apple takes them, within the 4,096-byte record', async () => {
    const server = apple();
    const { key, token } = await server.account();
    const { subscription } = await server.subscribe(key);
    for (const level of ['passive', 'active', 'time-sensitive']) {
      await server.send(token, {
        message: `at ${level}`,
        level,
        tag: `build.main-${level}_${'x'.repeat(30)}`,
      });
    }
    await server.send(token, {
      message: '🦊'.repeat(1000),
      title: 'long',
      url: `https://example.com/${'x'.repeat(1500)}`,
    });
    const pushes = server.push.pushesTo(subscription);
    expect(pushes.map((push) => [push.status, push.rejection, push.urgency])).toEqual([
      [201, undefined, 'low'],
      [201, undefined, 'normal'],
      [201, undefined, 'high'],
      [201, undefined, 'normal'],
    ]);
    expect(pushes.every((push) => push.bodyBytes <= 4096)).toBe(true);
  });

  it('responds with 410 Unregistered once the browser dropped the subscription: the device is inactive, as its app can read', async () => {
    const server = apple();
    const { key, token } = await server.account();
    const { id: deviceId, subscription } = await server.subscribe(key);
    // iOS drops it without a word: the icon deleted, or three pushes that showed nothing.
    server.push.unsubscribe(subscription);
    const id = await server.send(token, { message: 'to a dropped subscription' });
    expect(server.push.pushesTo(subscription).map((push) => push.status)).toEqual([410]);
    expect((await server.statusOf(token, id)).destinations).toEqual([
      {
        name: 'iPhone',
        platform: 'ios',
        state: 'failed_permanent',
        push_status: 410,
        reason: 'gone',
        updated_at: expect.any(String),
      },
    ]);
    const devices = (await server.request('GET', '/v1/devices', { token: key })).body.devices;
    const device = devices.find((one: { id: string }) => one.id === deviceId);
    expect([device?.active, device?.inactive_reason]).toEqual([false, 'subscription_gone']);
  });

  it('rejects a push signed with a subject on this machine (403 BadJwtToken): why the server will not start with one', async () => {
    const server = await startWebPushServer({ apple: true, subject: 'mailto:root@localhost' });
    const { key, token } = await server.account();
    const { subscription } = await server.subscribe(key);
    const id = await server.send(token, { message: 'never shown' });
    const [push] = server.push.pushesTo(subscription);
    expect([push?.status, push?.rejection]).toEqual([
      403,
      'subject mailto:root@localhost is on this machine',
    ]);
    expect((await server.statusOf(token, id)).destinations[0]).toMatchObject({
      state: 'failed_permanent',
      push_status: 403,
      reason: 'refused',
    });
  });
});
