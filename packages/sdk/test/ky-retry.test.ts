// Why the SDK runs its own retry loop instead of ky's (docs/sdk.md, "Retries"): ky 2's retry,
// configured as close to the service's policy as its options go, against the SDK on the same
// responses. Each case is a rule of the policy that ky's loop breaks. If a ky release makes one of
// these pass the other way, this file says so, and the choice is worth making again.
import ky, { type Options } from 'ky';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKOFF_MS, MAX_RETRIES, MAX_WAIT_MS } from '../src/retry.js';
import { BASE_URL, errorReply, fakeClockClient, handlerFetch, serve, useMockService } from './helpers.js';

useMockService();

beforeEach(() => {
  // ky measures totalTimeout with performance.now().
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const RETRYABLE = [429, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511];

/** ky 2 set up to follow the policy as far as its options reach. */
const kyAsPolicy = (retry: Options['retry'] = {}, extra: Options = {}) =>
  ky.create({
    prefix: BASE_URL,
    fetch: handlerFetch,
    timeout: 30_000,
    throwHttpErrors: true,
    retry: {
      limit: MAX_RETRIES,
      methods: ['post', 'get'],
      statusCodes: RETRYABLE,
      afterStatusCodes: RETRYABLE,
      maxRetryAfter: MAX_WAIT_MS,
      retryOnTimeout: true,
      delay: (attempt) => BACKOFF_MS[attempt - 1] ?? MAX_WAIT_MS,
      ...(typeof retry === 'object' ? retry : {}),
    },
    ...extra,
  });

/** Runs the fake clock until the call settles; returns its error and when it settled. */
async function settle(promise: Promise<unknown>): Promise<{ error: unknown; at: number }> {
  const outcome = promise.then(
    () => ({ error: undefined, at: Date.now() }),
    (error: unknown) => ({ error, at: Date.now() }),
  );
  await vi.advanceTimersByTimeAsync(180_000);
  return outcome;
}

const gaps = (requests: { at: number }[]) =>
  requests.slice(1).map((request, i) => request.at - (requests[i]?.at ?? 0));

const send = (client: ReturnType<typeof kyAsPolicy>) =>
  client.post('v1/notifications', { body: '{"message":"hi"}' }).text();

describe("ky 2's retry against the policy", () => {
  it('a 429 is retried only when its code is rate_limited: shouldRetry can say so, but then ky drops the Retry-After', async () => {
    const reply = errorReply(429, 'rate_limited', { 'retry-after': '5' });
    const ours = serve('post', '/v1/notifications', reply, reply);
    await settle(fakeClockClient({ maxRetries: 1 }).send({ message: 'hi' }));
    expect(gaps(ours)).toEqual([5_000]);

    // The code is in the body, so only shouldRetry can tell rate_limited from quota_exceeded;
    // a `true` from it sends ky down its backoff path, which never reads Retry-After.
    const theirs = serve('post', '/v1/notifications', reply, reply);
    const client = kyAsPolicy({
      limit: 1,
      shouldRetry: async ({ error }) =>
        // biome-ignore lint/suspicious/noExplicitAny: the error's data is ky's parsed body
        ((error as any).data?.error?.code ?? 'rate_limited') === 'rate_limited',
    });
    await settle(send(client));
    expect(gaps(theirs)).toEqual([1_000]);
  });

  it("reads the service's monthly X-RateLimit-Reset as a wait when Retry-After is absent", async () => {
    // Every response to a send carries X-RateLimit-Reset: when the month's quota resets.
    const monthEnd = String(Math.floor(Date.now() / 1000) + 20 * 86_400);
    const reply = errorReply(500, 'internal_error', { 'x-ratelimit-reset': monthEnd });
    const ours = serve('post', '/v1/notifications', reply, reply);
    await settle(fakeClockClient({ maxRetries: 1 }).send({ message: 'hi' }));
    expect(gaps(ours)).toEqual([1_000]);

    const theirs = serve('post', '/v1/notifications', reply, reply);
    await settle(send(kyAsPolicy({ limit: 1 })));
    expect(gaps(theirs)).toEqual([MAX_WAIT_MS]);
  });

  it('shortens a Retry-After past 60 s to the cap and retries, where the policy gives up', async () => {
    const reply = errorReply(503, 'service_unavailable', { 'retry-after': '61' });
    const ours = serve('post', '/v1/notifications', reply, reply);
    await settle(fakeClockClient({ maxRetries: 1 }).send({ message: 'hi' }));
    expect(ours).toHaveLength(1);

    const theirs = serve('post', '/v1/notifications', reply, reply);
    await settle(send(kyAsPolicy({ limit: 1 })));
    expect(gaps(theirs)).toEqual([MAX_WAIT_MS]);
  });

  it("at the overall deadline, totalTimeout sleeps out the rest and throws its own TimeoutError instead of the service's error", async () => {
    const reply = errorReply(503, 'service_unavailable');
    serve('post', '/v1/notifications', reply);
    let start = Date.now();
    const ours = await settle(fakeClockClient().send({ message: 'hi' }, { deadlineMs: 2_500 }));
    // One retry after 1 s; the next wait of 2 s would end past the deadline, so the call ends
    // at once with the service's response.
    expect(ours.error).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(ours.at - start).toBe(1_000);

    start = Date.now();
    const theirs = await settle(send(kyAsPolicy({}, { totalTimeout: 2_500 })));
    expect(theirs.error).toMatchObject({ name: 'TimeoutError' });
    expect(theirs.at - start).toBe(2_500);
  });
});
