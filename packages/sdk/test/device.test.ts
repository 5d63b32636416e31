import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { FoxbellDevice, inactiveInWords } from '../src/device.js';
import { ApiError, ValidationError } from '../src/errors.js';
import { BASE_URL, server, useMockService } from './helpers.js';

useMockService();

const KEY = `fox_dev_${'Ab3'.repeat(10)}xy`;
const subscription = {
  endpoint: 'https://web.push.apple.com/abc',
  expirationTime: null,
  keys: { p256dh: 'B'.repeat(87), auth: 'a'.repeat(22) },
};

/** Records every request to one route and responds with the replies in turn (the last repeats). */
function route(method: 'get' | 'post' | 'patch' | 'delete', path: string, ...replies: (() => Response)[]) {
  const seen: { headers: Headers; body: string }[] = [];
  server.use(
    http[method](`${BASE_URL}${path}`, async ({ request }) => {
      seen.push({ headers: request.headers, body: await request.text() });
      return (replies[Math.min(seen.length, replies.length) - 1] as () => Response)();
    }),
  );
  return seen;
}

const busy = () =>
  HttpResponse.json(
    { error: { code: 'service_unavailable', message: 'busy' }, request_id: 'req_1' },
    { status: 503, headers: { 'retry-after': '0', 'x-request-id': 'req_1' } },
  );

describe('the device client', () => {
  it('asks to be linked with the interface field names, and reads its code and poll secret', async () => {
    const seen = route('post', '/v1/link-requests', () =>
      HttpResponse.json(
        {
          id: 'lnk_1',
          code: 'ABCD-EFGH',
          secret: `fox_poll_${'x'.repeat(32)}`,
          expires_at: '2026-11-27T10:10:00.000Z',
        },
        { status: 201 },
      ),
    );
    const link = await new FoxbellDevice({ baseUrl: BASE_URL }).requestLink({
      deviceId: 'web-0123456789',
      name: 'iPhone',
      platform: 'ios',
      push: { webPush: subscription },
    });
    expect(link).toEqual({
      id: 'lnk_1',
      code: 'ABCD-EFGH',
      secret: `fox_poll_${'x'.repeat(32)}`,
      expiresAt: '2026-11-27T10:10:00.000Z',
    });
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      device_id: 'web-0123456789',
      name: 'iPhone',
      platform: 'ios',
      web_push: subscription,
    });
    expect(seen[0]?.headers.get('authorization')).toBeNull();
  });

  it('rejects a device id or a code that cannot be one before anything is sent', async () => {
    const device = new FoxbellDevice({ baseUrl: BASE_URL, deviceKey: KEY });
    const badId = await device
      .requestLink({ deviceId: 'short', name: 'x', platform: 'ios', push: { pushToken: 'a'.repeat(64) } })
      .catch((error) => error);
    expect([badId instanceof ValidationError, badId.code, badId.field]).toEqual([
      true,
      'invalid_field',
      'device_id',
    ]);
    const badCode = await device.approve('I0O1-LLLL').catch((error) => error);
    expect([badCode instanceof ValidationError, badCode.field]).toEqual([true, 'code']);
  });

  it('takes the device key from the first read after approval, with the poll secret as credential', async () => {
    const secret = `fox_poll_${'y'.repeat(32)}`;
    const seen = route('get', '/v1/link-requests/lnk_1', () =>
      HttpResponse.json({
        state: 'approved',
        expires_at: '2026-11-27T10:10:00.000Z',
        device: { id: 'dev_1', name: 'iPhone' },
        device_key: KEY,
        account_id: 'acct_1',
      }),
    );
    const status = await new FoxbellDevice({ baseUrl: BASE_URL }).pollLink({ id: 'lnk_1', secret });
    expect(status).toEqual({
      state: 'approved',
      expiresAt: '2026-11-27T10:10:00.000Z',
      linked: { device: { id: 'dev_1', name: 'iPhone' }, deviceKey: KEY, accountId: 'acct_1' },
    });
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${secret}`);
  });

  it('retries a read (the inbox) under the retry policy, and sends a change (an approval) once', async () => {
    const inbox = route('get', '/v1/inbox', busy, () => HttpResponse.json({ items: [], next_cursor: null }));
    const device = new FoxbellDevice({ baseUrl: BASE_URL, deviceKey: KEY, deviceId: 'dev_1' });
    expect(await device.inbox()).toEqual({ items: [], nextCursor: null });
    expect(inbox).toHaveLength(2);
    expect(inbox[0]?.headers.get('authorization')).toBe(`Bearer ${KEY}`);

    const approvals = route('post', '/v1/link-approvals', busy);
    const refused = await device.approve('abcd efgh').catch((error) => error);
    expect([refused instanceof ApiError, refused.code, refused.status]).toEqual([
      true,
      'service_unavailable',
      503,
    ]);
    // An approval that went through but whose response was lost must not be made twice.
    expect(approvals).toHaveLength(1);
  });

  it('reports for its own device, renames itself and leaves with its key', async () => {
    const device = new FoxbellDevice({ baseUrl: BASE_URL, deviceKey: KEY, deviceId: 'dev_1' });
    const events = route(
      'post',
      '/v1/notifications/ntf_1/events',
      () => new HttpResponse(null, { status: 204 }),
    );
    await device.report('ntf_1', 'opened');
    expect(JSON.parse(events[0]?.body ?? '')).toEqual({ device_id: 'dev_1', action: 'opened' });
    const renamed = route('patch', '/v1/device', () => HttpResponse.json({ id: 'dev_1', name: 'Work' }));
    expect((await device.update({ name: 'Work' })).name).toBe('Work');
    expect(JSON.parse(renamed[0]?.body ?? '')).toEqual({ name: 'Work' });
    const left = route('delete', '/v1/device', () => new HttpResponse(null, { status: 204 }));
    await device.leave();
    expect(left[0]?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    // Without a key, nothing is sent.
    await expect(new FoxbellDevice({ baseUrl: BASE_URL }).leave()).rejects.toMatchObject({
      code: 'invalid_config',
    });
  });

  it('reads itself with its key: whether its push service still takes its pushes, and when it was seen', async () => {
    const device = new FoxbellDevice({ baseUrl: BASE_URL, deviceKey: KEY, deviceId: 'dev_1' });
    const read = route('get', '/v1/device', () =>
      HttpResponse.json({ id: 'dev_1', name: 'iPhone', active: false, last_seen_at: null, stale: false }),
    );
    expect(await device.me()).toMatchObject({ id: 'dev_1', active: false, last_seen_at: null });
    expect(read[0]?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
  });

  it("says why its device is inactive in the contract's words, a reason it does not know too", async () => {
    const device = new FoxbellDevice({ baseUrl: BASE_URL, deviceKey: KEY, deviceId: 'dev_1' });
    route('get', '/v1/device', () =>
      HttpResponse.json({ id: 'dev_1', name: 'iPhone', active: false, inactive_reason: 'subscription_gone' }),
    );
    const me = await device.me();
    expect(inactiveInWords(me.inactive_reason)).toEqual({
      what: 'its notifications were turned off or its subscription was dropped',
      advice: 'open Foxbell on it to turn notifications on again',
    });
    expect(inactiveInWords('a reason of a newer server').what).toBe('it is no longer active');
  });

  it("tells onRetry of each retry of a read before its wait (a proxy's 502), never of a change", async () => {
    const proxyDown = () => new HttpResponse('', { status: 502 });
    const retries: unknown[] = [];
    const device = new FoxbellDevice({
      baseUrl: BASE_URL,
      deviceKey: KEY,
      deviceId: 'dev_1',
      onRetry: (info) => retries.push(info),
    });
    route('get', '/v1/inbox', proxyDown, () => HttpResponse.json({ items: [], next_cursor: null }));
    expect(await device.inbox()).toEqual({ items: [], nextCursor: null });
    expect(retries).toEqual([
      {
        attempt: 1,
        waitMs: expect.any(Number),
        reason: 'server_error',
        status: 502,
        code: 'service_unavailable',
      },
    ]);
    route('patch', '/v1/device', proxyDown);
    await expect(device.update({ name: 'Work' })).rejects.toMatchObject({ status: 502 });
    expect(retries).toHaveLength(1);
  });
});
