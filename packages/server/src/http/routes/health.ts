import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.js';

/** What the process knows of itself that readiness reports. */
export interface HealthDeps {
  /** True once a stop began: no new work should be sent here. */
  stopping(): boolean;
  /** Delivery in this process, when it has any: whether APNs is refusing the credential now. */
  credentialRefused?: () => boolean;
}

/**
 * `GET /healthz`: the process serves requests. `GET /readyz`: it can do its work: the database
 * answers with this release's migrations applied, and no stop has begun; otherwise 503. Readiness
 * also says, without failing, whether sends are paused and whether APNs refuses the credential
 * (work goes on being accepted; a person should look). Neither takes a credential, writes
 * anything, or tells a secret or a count.
 */
export function healthRoutes(app: FastifyInstance, store: Store, deps: HealthDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const database = await store.schemaCurrent().then(
      (current) => (current ? 'ok' : 'migrations_pending'),
      () => 'unreachable',
    );
    const shutdown = deps.stopping() ? 'stopping' : 'ok';
    const ready = database === 'ok' && shutdown === 'ok';
    const sends = database === 'ok' ? ((await store.getPause()).paused ? 'paused' : 'open') : 'unknown';
    const refused = deps.credentialRefused?.();
    reply.code(ready ? 200 : 503);
    return {
      status: ready ? 'ok' : 'unavailable',
      checks: { database, shutdown },
      sends,
      ...(refused === undefined ? {} : { apns_credential: refused ? 'refused' : 'ok' }),
    };
  });
}
