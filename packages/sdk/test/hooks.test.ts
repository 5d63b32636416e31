import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServerError, ValidationError } from '../src/index.js';
import { routeOf } from '../src/internal/request.js';
import { accepted, errorReply, fakeClockClient, serve, TOKEN, useMockService } from './helpers.js';

useMockService();
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A client whose hooks write down every event, in order. */
function traced() {
  const events: [string, Record<string, unknown>][] = [];
  const hook = (name: string) => (event: object) => events.push([name, { ...event }]);
  const client = fakeClockClient({
    random: () => 0,
    hooks: {
      onRequest: hook('request'),
      onResponse: hook('response'),
      onRetry: hook('retry'),
      onError: hook('error'),
    },
  });
  return { client, events };
}

async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.advanceTimersByTimeAsync(60_000);
  return outcome;
}

describe('hooks for tracing and metrics', () => {
  it("tell each attempt, its response, the retry between and the call's failure, by route template", async () => {
    serve('post', '/v1/notifications', errorReply(503, 'service_unavailable'), accepted);
    const { client, events } = traced();
    const { value } = await settle(client.send({ message: 'hi' }));
    expect(value).toMatchObject({ id: 'ntf_abc123' });
    const call = { callId: expect.any(Number), method: 'POST', route: '/v1/notifications' };
    expect(events).toEqual([
      ['request', { ...call, attempt: 1 }],
      ['response', { ...call, attempt: 1, status: 503, requestId: 'req_service_unavailable', durationMs: 0 }],
      [
        'retry',
        {
          ...call,
          attempt: 1,
          waitMs: 1000,
          reason: 'server_error',
          status: 503,
          code: 'service_unavailable',
          requestId: 'req_service_unavailable',
        },
      ],
      ['request', { ...call, attempt: 2 }],
      ['response', { ...call, attempt: 2, status: 202, requestId: 'req_ok1', durationMs: 0 }],
    ]);
    // One call, one id; the next call another.
    expect(new Set(events.map(([, event]) => event.callId)).size).toBe(1);
    const first = events[0]?.[1].callId;

    events.length = 0;
    serve('get', '/v1/notifications/:id/status', errorReply(404, 'not_found'));
    const { error } = await settle(client.status('ntf_secret123'));
    expect(events.map(([name]) => name)).toEqual(['request', 'response', 'error']);
    expect(events[0]?.[1].callId).not.toBe(first);
    expect(events[2]?.[1]).toEqual({
      callId: events[0]?.[1].callId,
      method: 'GET',
      route: '/v1/notifications/{id}/status',
      error,
      attempts: 1,
      durationMs: 0,
    });
    // Neither the id nor the token is in any event.
    expect(JSON.stringify(events)).not.toMatch(/ntf_secret123|fox_send_/);
  });

  it('tell a failure without a response, and nothing of a send rejected before it left', async () => {
    serve('post', '/v1/notifications', () => HttpResponse.error());
    const { client, events } = traced();
    const { error } = await settle(client.send({ message: 'hi' }, { maxRetries: 0 }));
    const call = { callId: events[0]?.[1].callId, method: 'POST', route: '/v1/notifications' };
    expect(events).toEqual([
      ['request', { ...call, attempt: 1 }],
      ['error', { ...call, error, attempts: 1, durationMs: 0 }],
    ]);
    events.length = 0;
    const refused = await settle(client.send({ message: '' }));
    expect(refused.error).toBeInstanceOf(ValidationError);
    expect(events).toEqual([]);
  });

  it('ignore a hook that throws: the call goes on', async () => {
    serve('post', '/v1/notifications', errorReply(503, 'service_unavailable'), accepted);
    const boom = () => {
      throw new Error('a broken exporter');
    };
    const client = fakeClockClient({
      random: () => 0,
      hooks: { onRequest: boom, onResponse: boom, onRetry: boom, onError: boom },
    });
    expect((await settle(client.send({ message: 'hi' }))).value).toMatchObject({ id: 'ntf_abc123' });
    serve('post', '/v1/notifications', errorReply(500, 'internal_error'));
    expect((await settle(client.send({ message: 'hi' }, { maxRetries: 0 }))).error).toBeInstanceOf(
      ServerError,
    );
  });

  it('name routes by template: ids and the URL token are never in them', () => {
    expect(routeOf('v1/notifications')).toBe('/v1/notifications');
    expect(routeOf('v1/notifications/ntf_1/status')).toBe('/v1/notifications/{id}/status');
    expect(routeOf('v1/notifications/ntf_1/events')).toBe('/v1/notifications/{id}/events');
    expect(routeOf('v1/link-requests/lnk_1')).toBe('/v1/link-requests/{id}');
    expect(routeOf('v1/inbox?cursor=abc&limit=2')).toBe('/v1/inbox');
    expect(routeOf(`v1/send/${TOKEN}?message=hi`)).toBe('/v1/send/{token}');
    expect(routeOf('v1/devices')).toBe('/v1/devices');
  });
});
