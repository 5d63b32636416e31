import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  Foxbell,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UndeliverableError,
} from '../src/index.js';
import { FakeFoxbell, responses } from '../src/testing/index.js';

afterEach(() => vi.useRealTimers());

function setup(options: ConstructorParameters<typeof FakeFoxbell>[0] = {}) {
  const service = new FakeFoxbell(options);
  const client = new Foxbell({ token: service.token, baseUrl: service.baseUrl, fetch: service.fetch });
  return { service, client };
}

/** A request straight to the fake, as a client other than the SDK might send it. */
async function raw(service: FakeFoxbell, body: string, headers: Record<string, string> = {}) {
  const response = await service.fetch(`${service.baseUrl}/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe('FakeFoxbell', () => {
  it('records each send as the service read it, and the exact request', async () => {
    const { service, client } = setup();
    const sent = await client.send({
      body: 'Deployed',
      title: 'api',
      level: 2,
      scene_params: {},
      tag: 'deploy',
    });
    expect(sent).toMatchObject({
      id: 'ntf_fake000001',
      status: 'accepted',
      rate_limit: { remaining: 9_999 },
    });
    const [recorded] = service.sends;
    expect(recorded?.fields).toEqual({
      message: 'Deployed',
      title: 'api',
      scene: 'notice',
      scene_version: 1,
      scene_params: {},
      bell_color: 'gold',
      level: 'time-sensitive',
      sound: 'default',
      ttl: 86_400,
      tag: 'deploy',
    });
    expect(recorded?.request.body).toBe(
      '{"body":"Deployed","title":"api","level":2,"scene_params":{},"tag":"deploy"}',
    );
    expect(recorded?.request.headers).toMatchObject({
      authorization: `Bearer ${service.token}`,
      'content-type': 'application/json',
      'idempotency-key': sent.idempotency_key,
    });
    expect(recorded?.idempotencyKey).toBe(sent.idempotency_key);
  });

  it('applies the contract to what reaches it, with the service’s codes and request ids', async () => {
    const { service } = setup();
    const refused = await raw(service, JSON.stringify({ message: 'a', colour: 'red' }));
    expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([
      400,
      'invalid_field',
      'colour',
    ]);
    expect(refused.body.request_id).toBe(refused.headers.get('x-request-id'));
    expect((await raw(service, JSON.stringify({ message: 'a', body: 'b' }))).body.error.code).toBe(
      'conflicting_field',
    );
    expect((await raw(service, JSON.stringify({ message: 'a', scene: 'laser' }))).body.error.code).toBe(
      'invalid_scene',
    );
    expect((await raw(service, '[1]')).body.error.code).toBe('invalid_request');
    expect((await raw(service, '{"message":"a"}', { 'content-type': 'text/plain' })).status).toBe(415);
    const big = await raw(
      service,
      JSON.stringify({ message: 'a', title: 'b'.repeat(200), scene_params: { x: 'c'.repeat(16_300) } }),
    );
    expect([big.status, big.body.error.code]).toEqual([413, 'payload_too_large']);
    const stranger = await service.fetch(`${service.baseUrl}/v1/devices`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(stranger.status).toBe(401);
    expect(service.sends).toEqual([]);
  });

  it('replays an idempotent retry and rejects a key reused for another request', async () => {
    const { service } = setup();
    const first = await raw(service, '{"message":"once"}', { 'idempotency-key': 'k-1' });
    const again = await raw(service, '{"message":"once"}', { 'idempotency-key': 'k-1' });
    expect([again.status, again.body.id, again.headers.get('idempotent-replayed')]).toEqual([
      202,
      first.body.id,
      'true',
    ]);
    const other = await raw(service, '{"message":"twice"}', { 'idempotency-key': 'k-1' });
    expect([other.status, other.body.error.code]).toEqual([409, 'idempotency_conflict']);
    expect(service.sends).toHaveLength(1);
    expect(service.requests.map((request) => request.status)).toEqual([202, 202, 409]);
  });

  it.each([
    ['a rate limit', responses.rateLimited(7), RateLimitError, 'rate_limited'],
    ['the quota', responses.quotaExceeded(), QuotaExceededError, 'quota_exceeded'],
    ['a revoked token', responses.tokenRevoked(), AuthenticationError, 'token_revoked'],
    ['a gateway 429', responses.gatewayRateLimit(), RateLimitError, 'rate_limited'],
    [
      'a gateway 429 with no body',
      responses.gatewayRateLimit({ body: 'none' }),
      RateLimitError,
      'rate_limited',
    ],
    ['a proxy 502', responses.badGateway(), ServerError, 'service_unavailable'],
    ['a dropped connection', responses.dropConnection(), ConnectionError, 'connection_error'],
  ])('answers as told: %s', async (name, response, kind, code) => {
    const { service, client } = setup();
    service.failNext(response);
    const failed = await client.send({ message: 'hi' }, { maxRetries: 0 }).catch((thrown: unknown) => thrown);
    expect(failed).toBeInstanceOf(kind);
    expect((failed as { code: string }).code).toBe(code);
    if (name === 'a rate limit') expect((failed as RateLimitError).retryAfter).toBe(7);
    // Then it serves again.
    expect((await client.send({ message: 'hi' })).status).toBe('accepted');
    expect(service.sends).toHaveLength(1);
  });

  it('a gateway 429 with no body is retried as a rate limit, after the first backoff', async () => {
    vi.useFakeTimers();
    const service = new FakeFoxbell();
    // No jitter: the first backoff is exactly 1 s.
    const client = new Foxbell({
      token: service.token,
      baseUrl: service.baseUrl,
      fetch: service.fetch,
      random: () => 0,
    });
    service.failNext(responses.gatewayRateLimit({ body: 'none' }));
    const sending = client.send({ message: 'hi' });
    await vi.advanceTimersByTimeAsync(999);
    expect(service.requests.map((request) => request.status)).toEqual([429]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await sending).status).toBe('accepted');
    expect(service.requests.map((request) => request.status)).toEqual([429, 202]);
  });

  it('drives "retries, then gives up" on fake timers in no real time', async () => {
    vi.useFakeTimers();
    const { service, client } = setup();
    service.failNext(
      responses.unavailable(20),
      responses.unavailable(20),
      responses.unavailable(20),
      responses.unavailable(20),
    );
    // Three waits of 20 s: on real timers this test would run out of its 5 s.
    const sending = client.send({ message: 'hi' });
    const failed = expect(sending).rejects.toBeInstanceOf(ServerError);
    await vi.advanceTimersByTimeAsync(60_000);
    await failed;
    expect(service.requests).toHaveLength(4);
    expect(new Set(service.requests.map((request) => request.body)).size).toBe(1);
    expect(new Set(service.requests.map((request) => request.headers['idempotency-key'])).size).toBe(1);
  });

  it('moves a notification through its states for waitFor and status', async () => {
    vi.useFakeTimers();
    const { service, client } = setup();
    const { id } = await client.send({ message: 'hi', target: 'watch' });
    const waiting = client.waitFor(id as string, { until: 'opened', timeoutMs: 10_000 });
    await vi.advanceTimersByTimeAsync(600);
    expect(service.deliver(id as string)).toMatchObject({
      status: 'sent_to_push',
      destinations: [{ platform: 'watchos', state: 'accepted', push_status: 200 }],
    });
    service.open(id as string);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await waiting).toMatchObject({
      status: 'opened',
      handled: [{ action: 'opened', platform: 'watchos' }],
    });
    service.clear(id as string);
    expect((await client.status(id as string)).status).toBe('cleared');

    const { id: lost } = await client.send({ message: 'to nobody', target: 'Old iPad' });
    expect(service.deliver(lost as string)).toMatchObject({
      status: 'dropped',
      reason: 'no_matching_device',
    });
    const { id: late } = await client.send({ message: 'late' });
    service.drop(late as string, 'expired');
    const dropped = await client.waitFor(late as string).catch((error: unknown) => error);
    expect(dropped).toBeInstanceOf(UndeliverableError);
    expect(dropped).toMatchObject({ record: { status: 'dropped', reason: 'expired' } });

    const { id: gone } = await client.send({
      message: 'to a phone whose subscription is gone',
      target: 'watch',
    });
    expect(service.fail(gone as string)).toMatchObject({
      status: 'accepted',
      destinations: [{ platform: 'watchos', state: 'failed_permanent', push_status: 410, reason: 'gone' }],
    });
    const failed = await client.waitFor(gone as string).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(UndeliverableError);
    expect((failed as UndeliverableError).record.destinations).toEqual([
      expect.objectContaining({ state: 'failed_permanent', reason: 'gone' }),
    ]);
    const { id: refused } = await client.send({ message: 'refused', target: 'watch' });
    expect(service.fail(refused as string, 'tls').destinations).toEqual([
      { platform: 'watchos', state: 'failed_permanent', updated_at: expect.any(String), reason: 'tls' },
    ]);

    const { id: never } = await client.send({ message: 'never delivered' });
    const timingOut = client.waitFor(never as string, { timeoutMs: 3_000 });
    const timedOut = expect(timingOut).rejects.toBeInstanceOf(TimeoutError);
    await vi.advanceTimersByTimeAsync(3_000);
    await timedOut;
  });

  it('serves scenes and the device names a token may see', async () => {
    const { client } = setup({ devices: [{ name: 'Ana’s iPhone', platform: 'ios' }] });
    expect(await client.devices()).toEqual([{ name: 'Ana’s iPhone', platform: 'ios' }]);
    expect((await client.scenes()).scenes.map((scene) => scene.id)).toEqual([
      'notice',
      'rocket',
      'fireworks',
      'garage',
      'campfire',
    ]);
  });
});
