import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * Hooks for `new Foxbell({ hooks })` that make one client span per attempt with OpenTelemetry's
 * API: named `POST /v1/notifications`, with the route template (never an id or the token), the
 * attempt, the status and the service's request id. Where spans go is the app's OpenTelemetry
 * setup (an exporter of its choosing); without one, the API does nothing and costs nothing.
 */
export function openTelemetryHooks(tracer = trace.getTracer('@foxbell/sdk')) {
  /** Spans of attempts still waiting for their end, by call and attempt. */
  const open = new Map();
  const key = (event) => `${event.callId}:${event.attempt}`;
  const end = (span, error) => {
    if (error) {
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    span.end();
  };
  return {
    onRequest(event) {
      const span = tracer.startSpan(`${event.method} ${event.route}`, {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': event.method,
          'url.template': event.route,
          'http.request.resend_count': event.attempt - 1,
        },
      });
      open.set(key(event), span);
    },
    onResponse(event) {
      const span = open.get(key(event));
      if (!span) return;
      open.delete(key(event));
      span.setAttribute('http.response.status_code', event.status);
      if (event.requestId) span.setAttribute('foxbell.request_id', event.requestId);
      if (event.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
    onRetry(event) {
      // An attempt without a response (a refused connection, a timeout) ends here.
      const span = open.get(key(event));
      if (!span) return;
      open.delete(key(event));
      span.addEvent('retry', { 'foxbell.wait_ms': event.waitMs, 'foxbell.reason': event.reason });
      end(span, new Error(`no response: ${event.reason}`));
    },
    onError(event) {
      for (const [name, span] of open) {
        if (!name.startsWith(`${event.callId}:`)) continue;
        open.delete(name);
        end(span, event.error);
      }
    },
  };
}
