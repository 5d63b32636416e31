import type { Server } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from '../config/server-settings.js';
import type { PushTransport } from '../delivery/transport.js';
import { type DeliveryLog, DeliveryWorker } from '../delivery/worker.js';
import type { Clock } from '../kernel/clock.js';
import { type Metrics, serveMetrics } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import { DELIVERY_GRACE_MS } from './lifecycle.js';
import type { PushProviders } from './push-providers.js';

export interface Delivery {
  worker: DeliveryWorker;
  push: PushProviders;
  /** Each provider's state for readiness: its credential rejected, a simulator standing in, or ok. */
  pushStates(): Record<string, 'ok' | 'refused' | 'simulator'>;
  /** Stops claiming, lets pushes in flight finish (bounded), then closes the connection. */
  stop(): Promise<void>;
}

/** Delivery's log lines in the API's log (pino's JSON lines), each with its details as fields. */
export function deliveryLogOf(log: FastifyBaseLogger): DeliveryLog {
  return {
    error: (message, details) => log.error(details ?? {}, message),
    warn: (message, details) => log.warn(details ?? {}, message),
    info: (message, details) => log.info(details ?? {}, message),
  };
}

/** Delivery inside this process, unless `--workers` is 0: every provider's transport opened. */
export async function startDelivery(
  config: ServerConfig,
  store: Store,
  clock: Clock,
  push: PushProviders,
  metrics: Metrics | undefined,
  log: DeliveryLog,
): Promise<Delivery | undefined> {
  if (config.workers === 0) return undefined;
  // Outside dev mode a process says what stands in for the real thing (the built-in simulator, a
  // VAPID subject that is not the operator's).
  const { transports, standIns } = await push.openTransports((warning) =>
    process.stderr.write(`foxbell-server: warning: ${warning}\n`),
  );
  await warmTransports(transports, log);
  const worker = new DeliveryWorker({
    store,
    transports,
    unreadFor: push.providers.filter((provider) => provider.countsUnread).map((provider) => provider.id),
    clock,
    concurrency: config.workers,
    leaseMs: config.leaseMs,
    log,
    ...(metrics ? { metrics } : {}),
  });
  worker.start();
  // Another process's sends are seen at once rather than at the next poll (PostgreSQL).
  const watch = config.queueWake === 'notify' ? await store.watchQueue?.(() => worker.poke()) : undefined;
  return {
    worker,
    push,
    pushStates: () => {
      const paused = worker.pausedProviders;
      return Object.fromEntries(
        Object.keys(transports).map((id) => [
          id,
          paused.includes(id) ? 'refused' : standIns.includes(id) ? 'simulator' : 'ok',
        ]),
      );
    },
    stop: async () => {
      await watch?.close();
      await worker.stop(DELIVERY_GRACE_MS);
      await push.close();
    },
  };
}

/** How long a start waits for a push service's connection before it goes on without it. */
export const WARM_TIMEOUT_MS = 5_000;

/**
 * Opens every transport's connection and credential before delivery starts (see
 * PushTransport.warm), so that a start's first pushes wait for neither. Bounded: a push service
 * that cannot be reached now is logged, and the first push to it tries again; the start goes on.
 */
export async function warmTransports(
  transports: Record<string, PushTransport>,
  log: DeliveryLog,
  timeoutMs = WARM_TIMEOUT_MS,
): Promise<void> {
  await Promise.all(
    Object.entries(transports).map(async ([provider, transport]) => {
      if (!transport.warm) return;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no connection after ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([transport.warm(), timedOut]);
      } catch (error) {
        log.warn('could not connect to the push service at start; its first push will try again', {
          provider,
          error: (error as Error).message,
        });
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/** Serves the metrics apart from the API when `--metrics` asks, and says where. */
export async function announceMetrics(
  metrics: Metrics | undefined,
  config: ServerConfig,
): Promise<Server | undefined> {
  if (!metrics || !config.metrics) return undefined;
  const { url, server } = await serveMetrics(metrics, config.metrics);
  process.stdout.write(`foxbell-server metrics on ${url}\n`);
  return server;
}
