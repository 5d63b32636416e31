import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ConnectionError,
  InvalidRequestError,
  QuotaExceededError,
  RateLimitError,
  type RetryInfo,
  ServerError,
  TimeoutError,
} from '../src/index.js';
import { accepted, errorReply, fakeClockClient, type Reply, serve, useMockService } from './helpers.js';

useMockService();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const unavailable = errorReply(503, 'service_unavailable');
const networkFailure: Reply = () => HttpResponse.error();

/** Starts a call and lets the fake clock run until it settles; returns what it settled with. */
async function settle<T>(promise: Promise<T>, ms = 120_000): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.advanceTimersByTimeAsync(ms);
  return outcome;
}

const gaps = (requests: { at: number }[]) =>
  requests.slice(1).map((request, i) => request.at - (requests[i]?.at ?? 0));

describe('what is retried', () => {
  it('retries 503 three times with waits of 1, 2 and 4 s, then throws the last error with every attempt', async () => {
    const requests = serve('post', '/v1/notifications', unavailable);
    const { error } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(requests).toHaveLength(4);
    expect(gaps(requests)).toEqual([1000, 2000, 4000]);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      requestId: 'req_service_unavailable',
    });
    expect((error as ServerError).attempts).toEqual(
      Array(4).fill({ status: 503, code: 'service_unavailable', requestId: 'req_service_unavailable' }),
    );
  });

  it('succeeds on a retry and returns the 202', async () => {
    const requests = serve(
      'post',
      '/v1/notifications',
      unavailable,
      errorReply(500, 'internal_error'),
      accepted,
    );
    const { value } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(value).toMatchObject({ id: 'ntf_abc123', status: 'accepted', request_id: 'req_ok1' });
    expect(gaps(requests)).toEqual([1000, 2000]);
  });

  it("treats a gateway's 429 without error.code as rate_limited and retries it", async () => {
    const gateway: Reply = () => HttpResponse.json({ message: 'Too Many Requests' }, { status: 429 });
    const requests = serve('post', '/v1/notifications', gateway);
    const { error } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(requests).toHaveLength(4);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', message: 'Too Many Requests' });
  });

  it("treats a proxy's 502 page as service_unavailable and retries it", async () => {
    const proxy: Reply = () => new HttpResponse('<html>Bad Gateway</html>', { status: 502 });
    const requests = serve('post', '/v1/notifications', proxy, proxy, accepted);
    const { value } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(value?.id).toBe('ntf_abc123');
    expect(requests).toHaveLength(3);
  });

  it('reports the code a proxy 504 stands for', async () => {
    serve('post', '/v1/notifications', () => new HttpResponse(null, { status: 504 }));
    const { error } = await settle(fakeClockClient({ maxRetries: 0 }).send({ message: 'hi' }));
    expect(error).toMatchObject({ name: 'ServerError', status: 504, code: 'service_unavailable' });
  });

  it('retries a failure with no HTTP status and throws ConnectionError', async () => {
    const requests = serve('post', '/v1/notifications', networkFailure);
    const { error } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(requests).toHaveLength(4);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).attempts).toEqual(Array(4).fill({ failure: 'network' }));
  });

  it.each([
    [400, 'invalid_field'],
    [401, 'unauthorized'],
    [401, 'token_revoked'],
    [403, 'forbidden'],
    [403, 'scene_not_allowed'],
    [404, 'not_found'],
    [409, 'idempotency_conflict'],
    [413, 'payload_too_large'],
    [415, 'unsupported_media_type'],
    [422, 'urls_not_allowed'],
    [429, 'quota_exceeded'],
    [429, 'link_locked'],
  ])('never retries %i %s', async (status, code) => {
    const requests = serve('post', '/v1/notifications', errorReply(status, code, { 'retry-after': '1' }));
    const { error } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({ status, code });
  });

  it('throws QuotaExceededError with the reset time and does not retry', async () => {
    const requests = serve(
      'post',
      '/v1/notifications',
      errorReply(429, 'quota_exceeded', { 'x-ratelimit-reset': '1798761600' }),
    );
    const { error } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(requests).toHaveLength(1);
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect((error as QuotaExceededError).resetAt?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('how long it waits', () => {
  it('waits Retry-After exactly: not a millisecond sooner', async () => {
    const requests = serve(
      'post',
      '/v1/notifications',
      errorReply(429, 'rate_limited', { 'retry-after': '7' }),
      accepted,
    );
    const sending = fakeClockClient({ random: () => 0.99 }).send({ message: 'hi' });
    await vi.advanceTimersByTimeAsync(6999);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    await expect(sending).resolves.toMatchObject({ id: 'ntf_abc123' });
  });

  it('says a wait of 5 s or more on the console when no log was asked for, and nothing with logLevel off', async () => {
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      serve('post', '/v1/notifications', errorReply(429, 'rate_limited', { 'retry-after': '7' }), accepted);
      await settle(fakeClockClient().send({ message: 'hi' }));
      expect(warned.mock.calls).toEqual([
        [
          expect.stringMatching(
            /^foxbell: POST \S+\/v1\/notifications: waiting 7 s before retry 1 \(rate_limited, the service's Retry-After\); pass logLevel: 'off' to keep this quiet$/,
          ),
        ],
      ]);
      warned.mockClear();
      // A short wait is not worth a word; a log chosen, even off, takes its place.
      serve('post', '/v1/notifications', errorReply(429, 'rate_limited', { 'retry-after': '1' }), accepted);
      await settle(fakeClockClient().send({ message: 'hi' }));
      serve('post', '/v1/notifications', errorReply(429, 'rate_limited', { 'retry-after': '7' }), accepted);
      await settle(fakeClockClient({ logLevel: 'off' }).send({ message: 'hi' }));
      expect(warned).not.toHaveBeenCalled();
    } finally {
      warned.mockRestore();
    }
  });

  it('waits a Retry-After of 60 s and gives up at once on 61 s', async () => {
    const sixty = serve(
      'post',
      '/v1/notifications',
      errorReply(503, 'service_unavailable', { 'retry-after': '60' }),
      accepted,
    );
    await settle(fakeClockClient().send({ message: 'hi' }));
    expect(gaps(sixty)).toEqual([60_000]);

    const requests = serve(
      'post',
      '/v1/notifications',
      errorReply(503, 'service_unavailable', { 'retry-after': '61' }),
    );
    const { error } = await settle(fakeClockClient().send({ message: 'hi' }));
    expect(requests).toHaveLength(1);
    expect(error).toMatchObject({ status: 503, retryAfter: 61 });
  });

  it.each(['Wed, 21 Oct 2026 07:28:00 GMT', 'soon', '-1', '1.5', ''])(
    'falls back to 1-2-4 s on a malformed Retry-After %j',
    async (retryAfter) => {
      const requests = serve(
        'post',
        '/v1/notifications',
        errorReply(503, 'service_unavailable', { 'retry-after': retryAfter }),
      );
      await settle(fakeClockClient().send({ message: 'hi' }));
      expect(gaps(requests)).toEqual([1000, 2000, 4000]);
    },
  );

  it('adds a little jitter to the backoff waits', async () => {
    const requests = serve('post', '/v1/notifications', unavailable);
    await settle(fakeClockClient({ random: () => 0.5 }).send({ message: 'hi' }));
    expect(gaps(requests)).toEqual([1125, 2125, 4125]);
  });

  it('tells onRetry about each retry before its wait', async () => {
    const seen: RetryInfo[] = [];
    serve(
      'post',
      '/v1/notifications',
      errorReply(429, 'rate_limited', { 'retry-after': '3' }),
      unavailable,
      accepted,
    );
    await settle(fakeClockClient({ onRetry: (info) => seen.push(info) }).send({ message: 'hi' }));
    expect(seen).toEqual([
      {
        attempt: 1,
        waitMs: 3000,
        reason: 'rate_limited',
        status: 429,
        code: 'rate_limited',
        requestId: 'req_rate_limited',
      },
      {
        attempt: 2,
        waitMs: 2000,
        reason: 'server_error',
        status: 503,
        code: 'service_unavailable',
        requestId: 'req_service_unavailable',
      },
    ]);
  });

  it('makes fewer retries with maxRetries, and rejects more than 3', async () => {
    const requests = serve('post', '/v1/notifications', unavailable);
    await settle(fakeClockClient({ maxRetries: 1 }).send({ message: 'hi' }));
    expect(requests).toHaveLength(2);
    expect(() => fakeClockClient({ maxRetries: 4 })).toThrow(/maxRetries/);
  });

  it('starts no retry that would end past the overall deadline', async () => {
    const requests = serve('post', '/v1/notifications', unavailable);
    const { error } = await settle(fakeClockClient().send({ message: 'hi' }, { deadlineMs: 2500 }));
    // 1 s fits in 2.5 s; the next 2 s wait would end at 3 s.
    expect(gaps(requests)).toEqual([1000]);
    expect(error).toBeInstanceOf(ServerError);
  });
});

describe('what every retry sends', () => {
  it('sends byte-identical bodies and the same Idempotency-Key on every attempt', async () => {
    const requests = serve('post', '/v1/notifications', unavailable, networkFailure, unavailable, accepted);
    const fields = {
      message: 'Déploiement réussi 🚀',
      scene: 'rocket',
      scene_params: { color: 'green' },
      level: 2,
    } as const;
    await settle(fakeClockClient().send(fields, { idempotencyKey: 'deploy-42' }));
    expect(requests).toHaveLength(4);
    const first = requests[0];
    for (const request of requests) {
      expect(Buffer.from(request.body).equals(Buffer.from(first?.body ?? []))).toBe(true);
      expect(request.headers['idempotency-key']).toBe('deploy-42');
      expect(request.headers['content-type']).toBe('application/json');
    }
    expect(JSON.parse(Buffer.from(first?.body ?? []).toString('utf8'))).toEqual(fields);
  });

  it('generates one key per send when none is given, and keeps it across retries', async () => {
    const requests = serve('post', '/v1/notifications', unavailable, accepted);
    const { value } = await settle(fakeClockClient().send({ message: 'hi' }));
    const key = requests[0]?.headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(requests[1]?.headers['idempotency-key']).toBe(key);
    expect(value?.idempotency_key).toBe(key);

    const next = serve('post', '/v1/notifications', accepted);
    await settle(fakeClockClient().send({ message: 'hi' }));
    expect(next[0]?.headers['idempotency-key']).not.toBe(key);
  });
});

describe('timeouts and cancelling', () => {
  it('times out an attempt whose response never comes after 30 s, and retries it', async () => {
    const requests = serve('post', '/v1/notifications', () => new Promise<Response>(() => {}), accepted);
    const sending = fakeClockClient().send({ message: 'hi' });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1 + 1000);
    expect(requests).toHaveLength(2);
    await expect(sending).resolves.toMatchObject({ id: 'ntf_abc123' });
  });

  it('times out a body that stops arriving: the 30 s cover headers and body', async () => {
    const stalled: Reply = () =>
      new HttpResponse(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"id":'));
          },
        }),
        { status: 202, headers: { 'content-type': 'application/json' } },
      );
    const requests = serve('post', '/v1/notifications', stalled);
    const { error } = await settle(fakeClockClient({ maxRetries: 1 }).send({ message: 'hi' }));
    expect(requests).toHaveLength(2);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).attempts).toEqual([{ failure: 'timeout' }, { failure: 'timeout' }]);
  });

  it('stops at once when the signal fires during a wait', async () => {
    const requests = serve('post', '/v1/notifications', unavailable);
    const controller = new AbortController();
    const sending = fakeClockClient().send({ message: 'hi' }, { signal: controller.signal });
    const outcome = sending.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(500);
    controller.abort();
    const error = await outcome;
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).attempts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(requests).toHaveLength(1);
  });

  it('sends nothing when the signal has already fired', async () => {
    const requests = serve('post', '/v1/notifications', accepted);
    const { error } = await settle(
      fakeClockClient().send({ message: 'hi' }, { signal: AbortSignal.abort() }),
    );
    expect(error).toBeInstanceOf(AbortError);
    expect(requests).toHaveLength(0);
  });

  it('cancels a request in flight', async () => {
    serve('post', '/v1/notifications', () => new Promise<Response>(() => {}));
    const controller = new AbortController();
    const outcome = fakeClockClient()
      .send({ message: 'hi' }, { signal: controller.signal })
      .catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    expect(await outcome).toBeInstanceOf(AbortError);
  });
});

describe('reads are retried by the same policy', () => {
  it('retries GET status on 503 and returns the record', async () => {
    const record = { id: 'ntf_abc123', status: 'accepted', destinations: [], handled: [] };
    const requests = serve('get', '/v1/notifications/ntf_abc123/status', unavailable, () =>
      HttpResponse.json(record),
    );
    const { value } = await settle(fakeClockClient().status('ntf_abc123'));
    expect(value).toEqual(record);
    expect(gaps(requests)).toEqual([1000]);
  });

  it('does not retry a 400 on a read either', async () => {
    const requests = serve('get', '/v1/scenes', errorReply(400, 'invalid_request'));
    const { error } = await settle(fakeClockClient().scenes());
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(requests).toHaveLength(1);
  });
});
