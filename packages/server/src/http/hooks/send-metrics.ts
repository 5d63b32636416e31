import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../metrics/metrics.js';

/**
 * Counts every response of the send routes by endpoint and outcome: `accepted`, `replayed`, or the
 * error code it was rejected with. Registered in the send routes' own scope, and only when the
 * process serves metrics: otherwise the send path runs no hook for it.
 */
export function registerSendMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const endpoint = request.routeOptions.url === '/v1/notifications' ? 'json' : 'url';
    const outcome =
      reply.statusCode === 202
        ? reply.getHeader('idempotent-replayed') === 'true'
          ? 'replayed'
          : 'accepted'
        : (request.errorCode ?? String(reply.statusCode));
    metrics.send(endpoint, outcome);
    done();
  });
}
