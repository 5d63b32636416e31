import { Foxbell } from '@foxbell/sdk';
import { FakeFoxbell, responses } from '@foxbell/sdk/testing';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { openTelemetryHooks } from './otel-hooks.js';

/**
 * A tracer that keeps its spans, written against OpenTelemetry's API as any SDK's tracer is: what
 * an exporter would get. (An app registers its SDK's provider instead.)
 */
function recordingTracer() {
  const spans = [];
  return {
    spans,
    startSpan(name, options) {
      const span = {
        name,
        kind: options.kind,
        attributes: { ...options.attributes },
        events: [],
        status: { code: SpanStatusCode.UNSET },
        exceptions: [],
        ended: false,
        setAttribute(key, value) {
          span.attributes[key] = value;
          return span;
        },
        addEvent(eventName, attributes) {
          span.events.push({ name: eventName, attributes });
          return span;
        },
        recordException(error) {
          span.exceptions.push(error.message);
        },
        setStatus(status) {
          span.status = status;
          return span;
        },
        end() {
          span.ended = true;
        },
      };
      spans.push(span);
      return span;
    },
  };
}

let service;
let tracer;
let client;
beforeEach(() => {
  vi.useFakeTimers();
  service = new FakeFoxbell();
  tracer = recordingTracer();
  client = new Foxbell({
    token: service.token,
    baseUrl: service.baseUrl,
    fetch: service.fetch,
    hooks: openTelemetryHooks(tracer),
  });
});
afterEach(() => vi.useRealTimers());

it('makes a client span per attempt, named by the route template, with status and request id', async () => {
  service.failNext(responses.rateLimited(2));
  const sending = client.send({ message: 'Deploy done' });
  await vi.advanceTimersByTimeAsync(2_000);
  const sent = await sending;
  await client.status(sent.id);

  expect(tracer.spans.map((span) => [span.name, span.attributes, span.status.code, span.ended])).toEqual([
    [
      'POST /v1/notifications',
      expect.objectContaining({ 'url.template': '/v1/notifications', 'http.response.status_code': 429 }),
      SpanStatusCode.ERROR,
      true,
    ],
    [
      'POST /v1/notifications',
      expect.objectContaining({ 'http.request.resend_count': 1, 'http.response.status_code': 202 }),
      SpanStatusCode.UNSET,
      true,
    ],
    [
      'GET /v1/notifications/{id}/status',
      expect.objectContaining({
        'url.template': '/v1/notifications/{id}/status',
        'http.response.status_code': 200,
      }),
      SpanStatusCode.UNSET,
      true,
    ],
  ]);
  expect(tracer.spans[1].attributes['foxbell.request_id']).toMatch(/^req_/);
  // No span carries the notification's id or the token.
  expect(JSON.stringify(tracer.spans)).not.toContain(sent.id);
  expect(JSON.stringify(tracer.spans)).not.toContain(service.token);
});

it('ends the span of an attempt that got no response with its error', async () => {
  service.failNext(...Array.from({ length: 4 }, () => responses.dropConnection()));
  const sending = client.send({ message: 'Deploy done' }).catch((error) => error);
  await vi.advanceTimersByTimeAsync(10_000);
  const error = await sending;
  expect(error.code).toBe('connection_error');
  expect(tracer.spans).toHaveLength(4);
  expect(tracer.spans.every((span) => span.ended && span.status.code === SpanStatusCode.ERROR)).toBe(true);
  expect(tracer.spans[3].exceptions).toEqual([error.message]);
});
