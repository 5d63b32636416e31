import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.js';

/** What the process knows of itself that readiness reports. */
export interface HealthDeps {
  /** True once a stop began: no new work should be sent here. */
  stopping(): boolean;
  /**
   * Delivery in this process, when it has any: each push provider's state, by its id: `ok`,
   * `refused` (its push service refuses the credential now; its pushes wait) or `simulator` (a
   * stand-in: no real device gets its pushes).
   */
  push?: () => Record<string, 'ok' | 'refused' | 'simulator'>;
}

/**
 * `GET /healthz`: the process serves requests. `GET /readyz`: it can do its work: the database
 * answers with this release's migrations applied and takes writes, and no stop has begun;
 * otherwise 503. Readiness also says, without failing, whether sends are paused and how each push
 * provider fares (a refused credential, a simulator standing in: work goes on being accepted; a
 * person should look). Neither takes a credential, writes anything, or tells a secret or a count.
 */
export async function healthRoutes(
  app: FastifyInstance,
  { store, health: deps }: { store: Store; health: HealthDeps },
): Promise<void> {
  app.get(
    '/healthz',
    {
      config: {
        credentials: 'none',
        doc: {
          summary: 'Liveness: the process serves requests',
          answers: { 200: { description: 'Alive.', schema: 'Health' } },
        },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: {
        credentials: 'none',
        doc: {
          summary: 'Readiness: the database answers with its migrations applied, and no stop has begun',
          answers: {
            200: { description: 'Ready.', schema: 'Readiness' },
            503: { description: 'Not ready.', schema: 'Readiness' },
          },
        },
      },
    },
    async (_request, reply) => {
      const database = await store.schemaCurrent().then(
        (current) => (current ? 'ok' : 'migrations_pending'),
        () => 'unreachable',
      );
      const writes =
        database === 'unreachable'
          ? 'unknown'
          : await store.canWrite().then(
              (can) => (can ? 'ok' : 'read_only'),
              () => 'unknown',
            );
      const shutdown = deps.stopping() ? 'stopping' : 'ok';
      const ready = database === 'ok' && writes === 'ok' && shutdown === 'ok';
      const sends =
        database === 'ok'
          ? await store.getPause().then(
              (pause) => (pause.paused ? 'paused' : 'open'),
              () => 'unknown',
            )
          : 'unknown';
      const push = deps.push?.();
      reply.code(ready ? 200 : 503);
      return {
        status: ready ? 'ok' : 'unavailable',
        checks: { database, writes, shutdown },
        sends,
        ...(push === undefined ? {} : { push }),
      };
    },
  );
}
