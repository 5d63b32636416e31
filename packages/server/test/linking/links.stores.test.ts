import { describe, expect, it } from 'vitest';
import { PURGE_BATCH } from '../../src/kernel/retention.js';
import {
  bareAccount,
  createToken,
  expectError,
  pushToken,
  type Reply,
  serverForAll,
  startServer,
  type TestServer,
} from '../helpers.js';

/**
 * A device that links itself: a link request with a code, approved by the person's account key
 * (or another of their devices), and the device key the app is given for the inbox, its reports
 * and itself. Every rule of the interface's linking, on each store.
 */

const CODE = /^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/;
const TEN_MINUTES = 600_000;

// One server for the tests that link devices of their own and leave the clock: a dozen link
// requests in all, below the brake of 30 per client address. Those that move the clock, or count
// toward a brake, start their own.
const shared = serverForAll();

let deviceIds = 0;
/** A link request as an app makes it: its own id, its name, and an APNs push token. */
async function requestLink(server: TestServer, json: Record<string, unknown> = {}): Promise<Reply> {
  deviceIds += 1;
  return server.request('POST', '/v1/link-requests', {
    json: {
      device_id: `app-install-${deviceIds}`,
      name: "Ana's iPhone",
      platform: 'ios',
      push_token: pushToken(),
      ...json,
    },
  });
}

const approve = (server: TestServer, key: string, code: string) =>
  server.request('POST', '/v1/link-approvals', { token: key, json: { code } });
const poll = (server: TestServer, id: string, secret: string) =>
  server.request('GET', `/v1/link-requests/${id}`, { token: secret });

/** A device linked to `accountKey`: its link request approved, and its key taken by its first poll. */
async function linkedDevice(server: TestServer, accountKey: string) {
  const link = await requestLink(server);
  expect((await approve(server, accountKey, link.body.code)).status).toBe(201);
  const polled = await poll(server, link.body.id, link.body.secret);
  return { device: polled.body.device, key: polled.body.device_key as string };
}

describe('linking a device with a code', () => {
  it('makes a request with a code, is approved, and hands the app its device key on the first read only', async () => {
    const server = shared();
    const ana = await bareAccount(server);
    const link = await requestLink(server, { device_id: 'install-0001', in_auto: false });
    expect(link.status, link.text).toBe(201);
    expect(link.body).toEqual({
      id: expect.stringMatching(/^lnk_[A-Za-z0-9]{22}$/),
      code: expect.stringMatching(CODE),
      secret: expect.stringMatching(/^fox_poll_[A-Za-z0-9]{32}$/),
      expires_at: new Date(server.clock.now() + TEN_MINUTES).toISOString(),
    });
    const pending = await poll(server, link.body.id, link.body.secret);
    expect([pending.status, pending.body]).toEqual([
      200,
      { state: 'pending', expires_at: link.body.expires_at },
    ]);

    // Typed as a person would: lower case, a space instead of the dash.
    const typed = link.body.code.toLowerCase().replace('-', ' ');
    const approved = await approve(server, ana.key, typed);
    expect(approved.status, approved.text).toBe(201);
    const device = {
      id: expect.stringMatching(/^dev_/),
      name: "Ana's iPhone",
      platform: 'ios',
      device_id: 'install-0001',
      in_auto: false,
      active: true,
      created_at: new Date(server.clock.now()).toISOString(),
      // Its key is not used yet: the app has not even read it.
      last_seen_at: null,
      stale: false,
    };
    expect(approved.body).toEqual({ device });

    const first = await poll(server, link.body.id, link.body.secret);
    expect(first.body).toEqual({
      state: 'approved',
      expires_at: link.body.expires_at,
      device: approved.body.device,
      device_key: expect.stringMatching(/^fox_dev_[A-Za-z0-9]{32}$/),
      account_id: ana.id,
    });
    // Shown once: the store keeps only its hash now.
    expect((await poll(server, link.body.id, link.body.secret)).body).toEqual({
      state: 'approved',
      expires_at: link.body.expires_at,
    });
    const listed = await server.request('GET', '/v1/devices', { token: ana.key });
    expect(listed.body.devices).toEqual([device]);
  });

  it('gives the device key its routes: the inbox, its own reports, itself, approvals; 403 elsewhere', async () => {
    const server = shared();
    const ana = await bareAccount(server);
    const phone = await linkedDevice(server, ana.key);
    const watch = await linkedDevice(server, ana.key);
    const token = await createToken(server, ana.key, { name: 'CI' });
    const sent = await server.request('POST', '/v1/notifications', { token, json: { message: 'hi' } });
    await server.store.routeQueued({
      now: server.clock.now(),
      limit: 10,
      decide: (input) => ({
        kind: 'deliver',
        destinations: input.devices.map((device, i) => ({
          device,
          pushId: `00000000-0000-4000-8000-00000000000${i}`,
        })),
      }),
    });

    const inbox = await server.request('GET', '/v1/inbox', { token: phone.key });
    expect([inbox.status, inbox.body.items.map((item: { id: string }) => item.id)]).toEqual([
      200,
      [sent.body.id],
    ]);
    const own = await server.request('POST', `/v1/notifications/${sent.body.id}/events`, {
      token: phone.key,
      json: { device_id: phone.device.id, action: 'opened' },
    });
    expect(own.status, own.text).toBe(204);
    const other = await server.request('POST', `/v1/notifications/${sent.body.id}/events`, {
      token: phone.key,
      json: { device_id: watch.device.id, action: 'opened' },
    });
    expectError(other, 403, 'forbidden', 'device_id');

    const renamed = await server.request('PATCH', '/v1/device', {
      token: phone.key,
      json: { name: 'Work phone' },
    });
    expect([renamed.status, renamed.body.name, renamed.body.id]).toEqual([
      200,
      'Work phone',
      phone.device.id,
    ]);

    // A linked device approves another device's code for its account.
    const third = await requestLink(server);
    const byDevice = await approve(server, phone.key, third.body.code);
    expect(byDevice.status, byDevice.text).toBe(201);

    for (const [method, path] of [
      ['GET', '/v1/devices'],
      ['GET', '/v1/tokens'],
      ['POST', '/v1/tokens'],
      ['GET', `/v1/notifications/${sent.body.id}/status`],
      ['POST', '/v1/notifications'],
      ['POST', '/v1/account/key'],
      ['DELETE', '/v1/account'],
    ] as const) {
      const reply = await server.request(method, path, {
        token: phone.key,
        ...(method === 'POST' ? { json: { message: 'x' } } : {}),
      });
      expect([path, reply.status, reply.body?.error?.code]).toEqual([path, 403, 'forbidden']);
    }
  });

  it('leaves its account with DELETE /v1/device: the device is removed and its key responds token_revoked', async () => {
    const server = shared();
    const ana = await bareAccount(server);
    const phone = await linkedDevice(server, ana.key);
    expect((await server.request('DELETE', '/v1/device', { token: phone.key })).status).toBe(204);
    expectError(await server.request('GET', '/v1/inbox', { token: phone.key }), 401, 'token_revoked');
    const listed = await server.request('GET', '/v1/devices', { token: ana.key });
    expect(
      listed.body.devices.map((device: Record<string, unknown>) => [device.active, device.inactive_reason]),
    ).toEqual([[false, 'removed']]);

    // Removed by the account, likewise.
    const watch = await linkedDevice(server, ana.key);
    expect(
      (await server.request('DELETE', `/v1/devices/${watch.device.id}`, { token: ana.key })).status,
    ).toBe(204);
    expectError(await server.request('GET', '/v1/inbox', { token: watch.key }), 401, 'token_revoked');
    const both = await server.request('GET', '/v1/devices', { token: ana.key });
    expect(both.body.devices.map((device: Record<string, unknown>) => device.inactive_reason)).toEqual([
      'removed',
      'removed',
    ]);
  });

  it('rejects an approval in the order the interface gives: expired, approved, cancelled, unknown', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);

    const late = await requestLink(server);
    server.clock.advance(TEN_MINUTES);
    expectError(await approve(server, ana.key, late.body.code), 410, 'link_expired');
    expect((await poll(server, late.body.id, late.body.secret)).body.state).toBe('expired');

    const twice = await requestLink(server);
    expect((await approve(server, ana.key, twice.body.code)).status).toBe(201);
    expectError(await approve(server, ana.key, twice.body.code), 409, 'link_not_pending');

    const cancelled = await requestLink(server);
    const cancel = await server.request('DELETE', `/v1/link-requests/${cancelled.body.id}`, {
      token: cancelled.body.secret,
    });
    expect(cancel.status).toBe(204);
    expect((await poll(server, cancelled.body.id, cancelled.body.secret)).body.state).toBe('cancelled');
    expectError(await approve(server, ana.key, cancelled.body.code), 409, 'link_not_pending');
    // An approved request cannot be cancelled.
    expectError(
      await server.request('DELETE', `/v1/link-requests/${twice.body.id}`, { token: twice.body.secret }),
      409,
      'link_not_pending',
    );

    expectError(await approve(server, ana.key, 'ZZZZ-ZZZZ'), 404, 'not_found', 'code');
    expectError(await approve(server, ana.key, 'not a code at all'), 404, 'not_found', 'code');
  });

  it('locks an account after 5 wrong codes in 10 minutes: the sixth and every approval then is link_locked', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const bob = await bareAccount(server);
    const start = server.clock.now();
    for (let i = 0; i < 5; i++) {
      expectError(await approve(server, ana.key, `WRNG-CDE${i + 2}`), 404, 'not_found', 'code');
      server.clock.advance(60_000);
    }
    const link = await requestLink(server);
    // Even the right code: the lock comes first. Retry-After: until the oldest wrong code is 10 minutes old.
    const locked = await approve(server, ana.key, link.body.code);
    expectError(locked, 429, 'link_locked');
    expect(locked.headers.get('retry-after')).toBe(String((start + TEN_MINUTES - server.clock.now()) / 1000));
    // Another account is not locked by Ana's mistakes.
    expect((await approve(server, bob.key, link.body.code)).status).toBe(201);

    server.clock.set(new Date(start + TEN_MINUTES - 1).toISOString());
    expectError(await approve(server, ana.key, 'WRNG-CDE9'), 429, 'link_locked');
    server.clock.advance(1);
    // The oldest left the window: one more wrong code may be given (and locks again).
    expectError(await approve(server, ana.key, 'WRNG-CDE9'), 404, 'not_found', 'code');
    expectError(await approve(server, ana.key, 'WRNG-CDE9'), 429, 'link_locked');
  });

  it('approves at most 5 links in 10 minutes per account (Retry-After), and 20 devices', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const start = server.clock.now();
    for (let i = 0; i < 5; i++) {
      expect((await approve(server, ana.key, (await requestLink(server)).body.code)).status).toBe(201);
      server.clock.advance(30_000);
    }
    const sixth = await requestLink(server);
    const limited = await approve(server, ana.key, sixth.body.code);
    expectError(limited, 409, 'limit_reached');
    expect(limited.body.error.details).toEqual({ limit: 'link_approvals', max: 5 });
    expect(limited.headers.get('retry-after')).toBe(
      String((start + TEN_MINUTES - server.clock.now()) / 1000),
    );
    // The rejected request is still pending: approved once the window has room.
    server.clock.set(new Date(start + TEN_MINUTES).toISOString());
    const sixthLate = await requestLink(server);
    expect((await approve(server, ana.key, sixthLate.body.code)).status).toBe(201);

    for (let i = 6; i < 20; i++) {
      const reply = await server.request('POST', '/v1/devices', {
        token: ana.key,
        json: { name: `Device ${i}`, platform: 'ios', push_token: pushToken() },
      });
      expect(reply.status, reply.text).toBe(201);
    }
    server.clock.advance(TEN_MINUTES);
    const full = await approve(server, ana.key, (await requestLink(server)).body.code);
    expectError(full, 409, 'limit_reached');
    expect(full.body.error.details).toEqual({ limit: 'devices', max: 20 });
  });

  it('rejects a device id or push address already registered or being linked: device_exists', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const token = pushToken();
    const first = await requestLink(server, { device_id: 'install-same', push_token: token });
    expect(first.status).toBe(201);
    expectError(await requestLink(server, { device_id: 'install-same' }), 409, 'device_exists', 'device_id');
    expectError(await requestLink(server, { push_token: token }), 409, 'device_exists', 'device_id');
    expect((await approve(server, ana.key, first.body.code)).status).toBe(201);
    expectError(await requestLink(server, { device_id: 'install-same' }), 409, 'device_exists', 'device_id');
    const registered = pushToken();
    await server.request('POST', '/v1/devices', {
      token: ana.key,
      json: { name: 'Old', platform: 'ios', push_token: registered },
    });
    expectError(await requestLink(server, { push_token: registered }), 409, 'device_exists', 'device_id');
    // A request that expired holds nothing.
    const lapsed = await requestLink(server, { device_id: 'install-lapse' });
    server.clock.advance(TEN_MINUTES);
    expect((await requestLink(server, { device_id: 'install-lapse' })).status).toBe(201);
    expect(lapsed.status).toBe(201);
  });

  it('checks the request body: the device id, exactly one push address', async () => {
    const server = shared();
    expectError(await requestLink(server, { device_id: 'short' }), 400, 'invalid_field', 'device_id');
    expectError(
      await requestLink(server, { device_id: 'has space in it' }),
      400,
      'invalid_field',
      'device_id',
    );
    expectError(await requestLink(server, { push_token: undefined }), 400, 'missing_field', 'push_token');
    expectError(
      await requestLink(server, { web_push: { endpoint: 'https://web.push.apple.com/x', keys: {} } }),
      400,
      'missing_field',
      'web_push.keys.p256dh',
    );
    expectError(await requestLink(server, { platform: 'android' }), 400, 'invalid_field', 'platform');
  });

  it('brakes link requests at 30 per 10 minutes per client address', async () => {
    const server = await startServer();
    for (let i = 0; i < 30; i++) expect((await requestLink(server)).status).toBe(201);
    const braked = await requestLink(server);
    expectError(braked, 429, 'rate_limited');
    expect(braked.body.error.details).toEqual({ scope: 'link_requests', limit: 30 });
    expect(braked.headers.get('retry-after')).toBe('600');
    server.clock.advance(TEN_MINUTES);
    expect((await requestLink(server)).status).toBe(201);
  });

  it('counts an IPv6 /64 as one client: 30 requests from 30 addresses of one /64 brake the 31st', async () => {
    const server = await startServer({ trustProxy: ['127.0.0.1'] });
    const from = (address: string) =>
      server.request('POST', '/v1/link-requests', {
        headers: { 'x-forwarded-for': address },
        json: {
          device_id: `install-from-${address.replaceAll(':', '-')}`,
          name: 'Phone',
          platform: 'ios',
          push_token: pushToken(),
        },
      });
    for (let i = 1; i <= 30; i++) expect((await from(`2001:db8:1:2::${i.toString(16)}`)).status).toBe(201);
    const braked = expectError(await from('2001:db8:1:2:ffff:ffff:ffff:ffff'), 429, 'rate_limited');
    expect(braked.error.details).toEqual({ scope: 'link_requests', limit: 30 });
    // The next /64 is another client.
    expect((await from('2001:db8:1:3::1')).status).toBe(201);
  });

  it('lets a poll secret read and cancel its own request only', async () => {
    const server = shared();
    const mine = await requestLink(server);
    const theirs = await requestLink(server);
    expectError(await poll(server, theirs.body.id, mine.body.secret), 404, 'not_found', 'id');
    expectError(
      await server.request('DELETE', `/v1/link-requests/${theirs.body.id}`, { token: mine.body.secret }),
      404,
      'not_found',
      'id',
    );
    expectError(await poll(server, mine.body.id, `fox_poll_${'x'.repeat(32)}`), 401, 'unauthorized');
    expectError(await server.request('GET', '/v1/inbox', { token: mine.body.secret }), 403, 'forbidden');
    const ana = await bareAccount(server);
    expectError(await poll(server, mine.body.id, ana.key), 403, 'forbidden');
  });

  it('shortens codes to --link-code-seconds', async () => {
    const server = await startServer({ limits: { linkCodeMs: 30_000 } });
    const ana = await bareAccount(server);
    const link = await requestLink(server);
    const inTime = await requestLink(server);
    expect(link.body.expires_at).toBe(new Date(server.clock.now() + 30_000).toISOString());
    // Its last millisecond, and the one after.
    server.clock.advance(29_999);
    expect((await approve(server, ana.key, inTime.body.code)).status).toBe(201);
    server.clock.advance(1);
    expectError(await approve(server, ana.key, link.body.code), 410, 'link_expired');
  });
});

describe('what linking keeps, and for how long', () => {
  it('purges link requests past retention and wrong codes an hour old: the tables stay bounded', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const old = await requestLink(server);
    expectError(await approve(server, ana.key, 'WRNG-CDE2'), 404, 'not_found', 'code');
    server.clock.advance(TEN_MINUTES);
    const recent = await requestLink(server);
    expectError(await approve(server, ana.key, 'WRNG-CDE3'), 404, 'not_found', 'code');
    const purged = await server.store.purge(
      {
        notificationsBefore: 0,
        keysBefore: 0,
        windowsBefore: 0,
        // The first request expired before this; the second expires after it.
        credentialsBefore: server.clock.now() + 1,
        // The first wrong code is older than this; the second is not.
        wrongCodesBefore: server.clock.now() - 1,
      },
      PURGE_BATCH,
    );
    expect([purged.linkRequests, purged.wrongCodes]).toEqual([1, 1]);
    expect(await server.store.getLinkRequest(old.body.id)).toBeUndefined();
    expect((await server.store.getLinkRequest(recent.body.id))?.state).toBe('pending');
    // Its poll secret is unknown now.
    expectError(await poll(server, old.body.id, old.body.secret), 401, 'unauthorized');
  });
});
