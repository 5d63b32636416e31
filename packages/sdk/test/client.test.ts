import { inspect } from 'node:util';
import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  Foxbell,
  FoxbellError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UndeliverableError,
  ValidationError,
} from '../src/index.js';
import { SDK_VERSION } from '../src/internal/version.js';
import {
  accepted,
  BASE_URL,
  client,
  errorReply,
  fakeClockClient,
  serve,
  TOKEN,
  useMockService,
} from './helpers.js';

useMockService();

afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

describe('send', () => {
  it('posts the fields as JSON with the token, a key and the SDK version, and returns the 202 with its rate limit', async () => {
    const requests = serve('post', '/v1/notifications', accepted);
    const sent = await client().send({
      message: 'Build passed',
      scene: 'rocket',
      scene_params: { color: 'green' },
    });
    expect(sent).toEqual({
      id: 'ntf_abc123',
      status: 'accepted',
      request_id: 'req_ok1',
      rate_limit: { limit: 10000, remaining: 9999, reset: 1798761600 },
      idempotency_key: requests[0]?.headers['idempotency-key'],
    });
    expect(requests[0]?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'user-agent': `foxbell-sdk/${SDK_VERSION}`,
    });
    expect(Buffer.from(requests[0]?.body ?? []).toString()).toBe(
      '{"message":"Build passed","scene":"rocket","scene_params":{"color":"green"}}',
    );
  });

  it('sends the fields exactly as given: no defaults are added, so a retry stays the same request', async () => {
    const requests = serve('post', '/v1/notifications', accepted);
    await client().send({ body: 'hi', level: '2', title: undefined });
    expect(Buffer.from(requests[0]?.body ?? []).toString()).toBe('{"body":"hi","level":"2"}');
  });

  it('sends through the fetch it was given: the URL, the headers and the exact body bytes', async () => {
    const calls: { url: string; method: string | undefined; headers: Headers; body: string }[] = [];
    const givenFetch: typeof fetch = async (url, init) => {
      calls.push({
        url: String(url),
        method: init?.method,
        headers: new Headers(init?.headers),
        body: Buffer.from(init?.body as Uint8Array).toString(),
      });
      return Response.json({ id: 'ntf_given', status: 'accepted', request_id: 'req_given' }, { status: 202 });
    };
    const sent = await new Foxbell({ token: TOKEN, baseUrl: `${BASE_URL}/base/`, fetch: givenFetch }).send(
      { message: 'hi' },
      { idempotencyKey: 'key-1' },
    );
    expect(sent).toMatchObject({ id: 'ntf_given', request_id: 'req_given', rate_limit: null });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      url: `${BASE_URL}/base/v1/notifications`,
      method: 'POST',
      body: '{"message":"hi"}',
    });
    expect(Object.fromEntries(calls[0]?.headers ?? [])).toEqual({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'idempotency-key': 'key-1',
      'user-agent': `foxbell-sdk/${SDK_VERSION}`,
    });
  });

  it('does not throw on a 202 whose body a proxy dropped', async () => {
    serve(
      'post',
      '/v1/notifications',
      () => new HttpResponse(null, { status: 202, headers: { 'x-request-id': 'req_p' } }),
    );
    await expect(client().send({ message: 'hi' })).resolves.toMatchObject({
      id: null,
      status: 'accepted',
      request_id: 'req_p',
      rate_limit: null,
    });
  });
});

describe('errors from the service', () => {
  it.each([
    [400, 'invalid_field', InvalidRequestError],
    [413, 'payload_too_large', InvalidRequestError],
    [415, 'unsupported_media_type', InvalidRequestError],
    [422, 'urls_not_allowed', InvalidRequestError],
    [401, 'token_revoked', AuthenticationError],
    [403, 'scene_not_allowed', PermissionError],
    [404, 'not_found', NotFoundError],
    [409, 'idempotency_conflict', ConflictError],
    [429, 'rate_limited', RateLimitError],
    [429, 'quota_exceeded', QuotaExceededError],
    [500, 'internal_error', ServerError],
    [503, 'service_unavailable', ServerError],
    [410, 'cursor_expired', ApiError],
  ] as const)('%i %s is a %o', async (status, code, ErrorClass) => {
    serve('post', '/v1/notifications', () =>
      HttpResponse.json(
        { error: { code, message: 'm', field: 'title', details: { limit: 'x' } }, request_id: 'req_e1' },
        { status, headers: { 'x-request-id': 'req_e1', 'retry-after': '999' } },
      ),
    );
    const error = await client()
      .send({ message: 'hi' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(FoxbellError);
    expect(error).toMatchObject({
      status,
      code,
      message: 'm',
      field: 'title',
      details: { limit: 'x' },
      requestId: 'req_e1',
      retryAfter: 999,
      name: ErrorClass.kind,
    });
    expect((error as ApiError).headers['x-request-id']).toBe('req_e1');
    expect((error as ApiError).attempts).toEqual([{ status, code, requestId: 'req_e1' }]);
  });

  it('a ValidationError is not an ApiError: nothing was sent and there is no status', async () => {
    const error = await client()
      .send({ message: '' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(FoxbellError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error).not.toHaveProperty('status');
  });
});

describe('the token stays secret', () => {
  it('never shows in inspect or JSON of the client, nor in any error', async () => {
    const foxbell = client();
    expect(inspect(foxbell, { showHidden: true, depth: 5 })).not.toContain(TOKEN);
    expect(JSON.stringify(foxbell)).not.toContain(TOKEN);
    expect(String(foxbell)).not.toContain(TOKEN);

    serve('post', '/v1/notifications', errorReply(401, 'unauthorized'));
    const apiError = await foxbell.send({ message: 'hi' }).catch((caught: unknown) => caught);
    const refused = await foxbell.send({ message: '' }).catch((caught: unknown) => caught);
    serve('get', '/v1/scenes', () => HttpResponse.error());
    const unreachable = await client({ maxRetries: 0 })
      .scenes()
      .catch((caught: unknown) => caught);
    for (const error of [apiError, refused, unreachable]) {
      expect(error).toBeInstanceOf(FoxbellError);
      expect(inspect(error, { showHidden: true, depth: 10 })).not.toContain(TOKEN);
      expect(JSON.stringify(error)).not.toContain(TOKEN);
      expect(String(error)).not.toContain(TOKEN);
    }
  });
});

describe('configuration', () => {
  it('reads NOTIFY_TOKEN and NOTIFY_BASE_URL when no options are given', async () => {
    vi.stubEnv('NOTIFY_TOKEN', TOKEN);
    vi.stubEnv('NOTIFY_BASE_URL', `${BASE_URL}/`);
    const requests = serve('post', '/v1/notifications', accepted);
    const foxbell = new Foxbell();
    expect(foxbell.baseUrl).toBe(BASE_URL);
    await foxbell.send({ message: 'hi' });
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it.each([
    ['no token', { baseUrl: BASE_URL }, /NOTIFY_TOKEN/],
    ['no base URL', { token: TOKEN }, /NOTIFY_BASE_URL/],
    ['a base URL that is not http(s)', { token: TOKEN, baseUrl: 'ftp://x.test' }, /http\(s\)/],
    ['a token with a newline', { token: `${TOKEN}\n`, baseUrl: BASE_URL }, /not a send token/],
    ['a token that is too short', { token: 'abc', baseUrl: BASE_URL }, /not a send token/],
    ['an account key', { token: `fox_acct_${'a'.repeat(32)}`, baseUrl: BASE_URL }, /not a send token/],
    [
      'a log level that is not one',
      { token: TOKEN, baseUrl: BASE_URL, logLevel: 'loud' as 'info' },
      /logLevel/,
    ],
    ['a timeout of 0', { token: TOKEN, baseUrl: BASE_URL, timeoutMs: 0 }, /timeoutMs/],
  ])('rejects %s with a clear error', (_name, options, message) => {
    vi.stubEnv('NOTIFY_TOKEN', '');
    vi.stubEnv('NOTIFY_BASE_URL', '');
    expect(() => new Foxbell(options)).toThrow(message);
    // The code is invalid_config, and the token is never in the message.
    const error = (() => {
      try {
        new Foxbell(options);
      } catch (thrown) {
        return thrown as FoxbellError;
      }
    })();
    expect(error?.code).toBe('invalid_config');
    const { token } = options as { token?: string };
    if (token) expect(error?.message).not.toContain(token.trim());
  });

  it('takes a send token of another service: its prefix, send_, then 32 letters and digits', () => {
    expect(new Foxbell({ token: `acme_send_${'b'.repeat(32)}`, baseUrl: BASE_URL }).baseUrl).toBe(BASE_URL);
  });

  it('reads FOXBELL_LOG, and names it when it is not a level', () => {
    vi.stubEnv('FOXBELL_LOG', 'chatty');
    expect(() => new Foxbell({ token: TOKEN, baseUrl: BASE_URL })).toThrow(
      'FOXBELL_LOG must be one of debug, info, warn, error, off',
    );
  });

  it('keeps SDK_VERSION equal to the package version', async () => {
    const { default: pkg } = await import('../package.json', { with: { type: 'json' } });
    expect(SDK_VERSION).toBe(pkg.version);
  });
});

describe('reads', () => {
  const record = {
    id: 'ntf_abc123',
    status: 'sent_to_push',
    destinations: [
      { platform: 'ios', state: 'accepted', push_status: 200, updated_at: '2026-11-22T10:00:00.000Z' },
    ],
    handled: [],
  };

  it('status returns the record and escapes the id in the path', async () => {
    const requests = serve('get', '/v1/notifications/ntf_abc123/status', () => HttpResponse.json(record));
    await expect(client().status('ntf_abc123')).resolves.toEqual(record);
    expect(requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const odd = serve('get', '/v1/notifications/a%2F..%2Fb/status', errorReply(404, 'not_found'));
    await expect(client().status('a/../b')).rejects.toBeInstanceOf(NotFoundError);
    expect(odd).toHaveLength(1);
  });

  it('scenes returns the catalog', async () => {
    const catalog = {
      scenes: [{ id: 'notice', name: 'Notice', current_version: 1, versions: [{ version: 1, params: {} }] }],
    };
    serve('get', '/v1/scenes', () => HttpResponse.json(catalog));
    await expect(client().scenes()).resolves.toEqual(catalog);
  });

  it('devices returns the list of { name, platform }', async () => {
    serve('get', '/v1/devices', () =>
      HttpResponse.json({ devices: [{ name: "Ana's iPhone", platform: 'ios' }] }),
    );
    await expect(client().devices()).resolves.toEqual([{ name: "Ana's iPhone", platform: 'ios' }]);
  });

  it('devices with an account key: the active ones, and with includeInactive the others after them, with why', async () => {
    const gone = {
      id: 'dev_2',
      name: 'Old iPad',
      platform: 'ios',
      active: false,
      inactive_reason: 'subscription_gone',
    };
    const phone = { id: 'dev_3', name: "Ana's iPhone", platform: 'ios', active: true };
    const requests = serve('get', '/v1/devices', () => HttpResponse.json({ devices: [gone, phone] }));
    const accountKey = `fox_acct_${'Cd4'.repeat(10)}zz`;
    const listing = new Foxbell({ token: TOKEN, baseUrl: BASE_URL, accountKey });
    await expect(listing.devices()).resolves.toEqual([phone]);
    await expect(listing.devices({ includeInactive: true })).resolves.toEqual([phone, gone]);
    expect(requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${accountKey}`,
      `Bearer ${accountKey}`,
    ]);
  });

  it('devices without the device_names scope is a PermissionError', async () => {
    serve('get', '/v1/devices', errorReply(403, 'forbidden'));
    await expect(client().devices()).rejects.toBeInstanceOf(PermissionError);
  });

  it('a 200 of the wrong shape is an invalid_response error, not a crash later', async () => {
    serve('get', '/v1/devices', () => HttpResponse.json({ items: [] }));
    await expect(client().devices()).rejects.toMatchObject({
      name: 'FoxbellError',
      code: 'invalid_response',
    });
  });
});

describe('an error response whose body names no code (a proxy or a gateway page)', () => {
  it.each([
    [400, 'invalid_request', InvalidRequestError],
    [401, 'unauthorized', AuthenticationError],
    [403, 'forbidden', PermissionError],
    [404, 'not_found', NotFoundError],
    [409, 'unknown_error', ConflictError],
    [410, 'unknown_error', ApiError],
    [413, 'payload_too_large', InvalidRequestError],
    [415, 'unsupported_media_type', InvalidRequestError],
    [422, 'unknown_error', InvalidRequestError],
  ] as const)('%i stands for %s, a %o', async (status, code, ErrorClass) => {
    serve('get', '/v1/scenes', () => new HttpResponse('<html>proxy page</html>', { status }));
    const error = await client()
      .scenes()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toMatchObject({ status, code, message: `The service answered ${status} (${code})` });
  });
});

describe('waitFor', () => {
  const at =
    (status: string, extra: object = {}) =>
    () =>
      HttpResponse.json({ id: 'ntf_abc123', status, destinations: [], handled: [], ...extra });

  it('polls with growing pauses until sent_to_push', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const requests = serve(
      'get',
      '/v1/notifications/ntf_abc123/status',
      at('accepted'),
      at('accepted'),
      at('accepted'),
      at('sent_to_push'),
    );
    const waiting = fakeClockClient().waitFor('ntf_abc123');
    await vi.advanceTimersByTimeAsync(3500);
    await expect(waiting).resolves.toMatchObject({ status: 'sent_to_push' });
    expect(requests.slice(1).map((request, i) => request.at - (requests[i]?.at ?? 0))).toEqual([
      500, 1000, 2000,
    ]);
  });

  it('tells onUpdate about every record it polls, the last one included', async () => {
    serve('get', '/v1/notifications/ntf_abc123/status', at('accepted'), at('sent_to_push'));
    const seen: string[] = [];
    await client().waitFor('ntf_abc123', { intervalMs: 1, onUpdate: (record) => seen.push(record.status) });
    expect(seen).toEqual(['accepted', 'sent_to_push']);
  });

  const to = (state: string, extra: object = {}) => ({
    platform: 'ios',
    state,
    updated_at: '2026-11-27T10:00:01.000Z',
    ...extra,
  });

  /** What a wait ended with: its error, or its record. */
  const ending = (waiting: Promise<unknown>) => waiting.catch((error: unknown) => error);

  it('rejects at once on dropped with an UndeliverableError carrying the record', async () => {
    const requests = serve(
      'get',
      '/v1/notifications/ntf_abc123/status',
      at('dropped', { reason: 'no_matching_device' }),
    );
    const error = await ending(client().waitFor('ntf_abc123'));
    expect(error).toBeInstanceOf(UndeliverableError);
    expect(error).toBeInstanceOf(FoxbellError);
    expect(error).toMatchObject({
      name: 'UndeliverableError',
      code: 'undeliverable',
      message: 'ntf_abc123 will not arrive: it was dropped (no_matching_device)',
      record: { status: 'dropped', reason: 'no_matching_device' },
    });
    expect(requests).toHaveLength(1);
  });

  it('rejects as soon as every device has ended unreached, naming each with its state and reason', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const failed = to('failed_permanent', { name: "Ana's iPhone", push_status: 410, reason: 'gone' });
    const requests = serve(
      'get',
      '/v1/notifications/ntf_abc123/status',
      at('accepted', { destinations: [to('pending'), to('sending', { platform: 'watchos' })] }),
      at('accepted', { destinations: [failed, to('expired', { platform: 'watchos', reason: 'expired' })] }),
    );
    const waiting = ending(fakeClockClient().waitFor('ntf_abc123', { timeoutMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(500);
    const error = await waiting;
    expect(error).toBeInstanceOf(UndeliverableError);
    expect((error as UndeliverableError).message).toBe(
      "ntf_abc123 will not arrive: no device was reached: Ana's iPhone failed_permanent (gone), push status 410; watchos expired (expired)",
    );
    expect((error as UndeliverableError).record.destinations).toEqual([
      failed,
      to('expired', { platform: 'watchos', reason: 'expired' }),
    ]);
    expect(requests).toHaveLength(2);
  });

  it('counts superseded and skipped devices as unreached too', async () => {
    serve(
      'get',
      '/v1/notifications/ntf_abc123/status',
      at('accepted', { destinations: [to('superseded'), to('skipped', { platform: 'watchos' })] }),
    );
    expect(await ending(client().waitFor('ntf_abc123'))).toBeInstanceOf(UndeliverableError);
  });

  it.each([
    ['a device is still pending', [to('failed_permanent', { reason: 'gone' }), to('pending')]],
    ['a device is being pushed', [to('failed_permanent', { reason: 'gone' }), to('sending')]],
    ['no device is routed yet', []],
    [
      'a state this version does not know',
      [to('failed_permanent', { reason: 'gone' }), to('queued_elsewhere')],
    ],
  ])('keeps waiting while %s, then times out', async (_name, destinations) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    serve('get', '/v1/notifications/ntf_abc123/status', at('accepted', { destinations }));
    const waiting = ending(fakeClockClient().waitFor('ntf_abc123', { timeoutMs: 10_000 }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await waiting).toBeInstanceOf(TimeoutError);
  });

  it('waiting for opened: rejects when no device was reached, keeps waiting while one was', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    serve(
      'get',
      '/v1/notifications/ntf_abc123/status',
      at('accepted', { destinations: [to('failed_permanent', { reason: 'tls' })] }),
    );
    const unreached = ending(fakeClockClient().waitFor('ntf_abc123', { until: 'opened' }));
    expect(await unreached).toBeInstanceOf(UndeliverableError);

    serve(
      'get',
      '/v1/notifications/ntf_abc123/status',
      at('sent_to_push', { destinations: [to('accepted'), to('failed_permanent', { reason: 'gone' })] }),
    );
    const reached = ending(fakeClockClient().waitFor('ntf_abc123', { until: 'opened', timeoutMs: 10_000 }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await reached).toBeInstanceOf(TimeoutError);
  });

  it('resolves when the status waited for came, whatever the destinations say (opened from the inbox)', async () => {
    serve(
      'get',
      '/v1/notifications/ntf_abc123/status',
      at('opened', { destinations: [to('failed_permanent', { reason: 'gone' })] }),
    );
    await expect(client().waitFor('ntf_abc123', { until: 'opened' })).resolves.toMatchObject({
      status: 'opened',
    });
  });

  it('resolves on a status further than the one waited for', async () => {
    serve('get', '/v1/notifications/ntf_abc123/status', at('opened'));
    await expect(client().waitFor('ntf_abc123', { until: 'sent_to_push' })).resolves.toMatchObject({
      status: 'opened',
    });
  });

  it('keeps waiting past opened for cleared: cleared comes after opened', async () => {
    const requests = serve('get', '/v1/notifications/ntf_abc123/status', at('opened'), at('cleared'));
    await expect(client().waitFor('ntf_abc123', { until: 'cleared', intervalMs: 1 })).resolves.toMatchObject({
      status: 'cleared',
    });
    expect(requests).toHaveLength(2);
  });

  it('throws TimeoutError with the last record when time runs out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    serve('get', '/v1/notifications/ntf_abc123/status', at('sent_to_push'));
    const waiting = fakeClockClient()
      .waitFor('ntf_abc123', { until: 'opened', timeoutMs: 10_000 })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10_000);
    const error = await waiting;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ record: { status: 'sent_to_push' } });
  });
});

describe('prepareSend', () => {
  it('returns the request send would make, with the token redacted, and sends nothing', async () => {
    const requests = serve('post', '/v1/notifications', accepted);
    const prepared = client().prepareSend({ message: 'hi', ttl: 60 }, { idempotencyKey: 'key-1' });
    expect(prepared).toEqual({
      method: 'POST',
      url: `${BASE_URL}/v1/notifications`,
      headers: {
        authorization: 'Bearer [redacted]',
        'user-agent': `foxbell-sdk/${SDK_VERSION}`,
        'content-type': 'application/json',
        'idempotency-key': 'key-1',
      },
      body: '{"message":"hi","ttl":60}',
    });
    expect(JSON.stringify(prepared)).not.toContain(TOKEN);
    await client().send({ message: 'hi', ttl: 60 }, { idempotencyKey: 'key-1' });
    expect(Buffer.from(requests[0]?.body ?? []).toString()).toBe(prepared.body);
  });

  it('rejects what send would reject', () => {
    expect(() => client().prepareSend({ message: '' })).toThrow(
      expect.objectContaining({ code: 'invalid_field', field: 'message' }),
    );
  });
});

describe('sendUrl', () => {
  it('percent-encodes every value and writes scene parameters as param.<name>', () => {
    const url = client().sendUrl({
      message: 'a b&c=d#e+f%g',
      scene: 'rocket',
      scene_params: { color: 'red', countdown: 5 },
      level: 2,
    });
    expect(url).toBe(
      `${BASE_URL}/v1/send/${TOKEN}?message=a%20b%26c%3Dd%23e%2Bf%25g&scene=rocket&param.color=red&param.countdown=5&level=2`,
    );
    const parsed = new URL(url);
    expect(parsed.searchParams.get('message')).toBe('a b&c=d#e+f%g');
  });

  it('checks the fields like send does', () => {
    expect(() => client().sendUrl({ message: 'hi', ttl: 0 })).toThrow(ValidationError);
  });

  it('rejects version, type and attachments, which a query string cannot carry', () => {
    expect(() => client().sendUrl({ message: 'hi', type: 'x' } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_field', field: 'type' }),
    );
  });

  it('rejects a URL over 16 KB', () => {
    expect(() =>
      client().sendUrl({ message: 'é'.repeat(2000), title: 'é'.repeat(125), subtitle: 'é'.repeat(125) }),
    ).not.toThrow();
    expect(() =>
      client().sendUrl({
        message: '😀'.repeat(1000),
        title: '😀'.repeat(62),
        url: `https://e.com/${'😀'.repeat(500)}`,
      }),
    ).toThrow(expect.objectContaining({ code: 'payload_too_large' }));
  });
});
