import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { Store } from '../../store/store.js';

/** What the process knows of itself that readiness reports. */
export interface HealthDeps {
  /** True once a stop began: no new work should be sent here. */
  stopping(): boolean;
  /**
   * Delivery in this process, when it has any: each push provider's state, by its id: `ok`,
   * `refused` (its push service rejects the credential now; its pushes wait) or `simulator` (a
   * stand-in: no real device gets its pushes).
   */
  push?: () => Record<string, (typeof PUSH_STATES)[number]>;
}

const PUSH_STATES = ['ok', 'refused', 'simulator'] as const;

const healthResponse = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
const readinessResponse = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.object({
      database: z.enum(['ok', 'migrations_pending', 'unreachable']),
      writes: z.enum(['ok', 'read_only', 'unknown']),
      shutdown: z.enum(['ok', 'stopping']),
    }),
    sends: z.enum(['open', 'paused', 'unknown']),
    push: z.record(z.string(), z.enum(PUSH_STATES)).optional().meta({
      description:
        'A process that delivers: each push provider by its id: ok; refused (its push service rejects the credential now, its pushes wait); simulator (a stand-in takes its pushes: no real device gets them).',
    }),
  })
  .meta({ id: 'Readiness' });

/**
 * `GET /healthz`: the process serves requests. `GET /readyz`: it can do its work: the database
 * responds with this release's migrations applied and takes writes, and no stop has begun;
 * otherwise 503. Readiness also says, without failing, whether sends are paused and how each push
 * provider fares (a rejected credential, a simulator standing in: work goes on being accepted; a
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
          operationId: 'getHealth',
          summary: 'Liveness: the process serves requests',
          responses: { 200: { description: 'Alive.', schema: healthResponse } },
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
          operationId: 'getReadiness',
          summary: 'Readiness: the database responds with its migrations applied, and no stop has begun',
          responses: {
            200: { description: 'Ready.', schema: readinessResponse },
            503: { description: 'Not ready.', schema: readinessResponse },
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
