import type { Server } from 'node:http';
import type { ServerConfig } from '../config/server-settings.js';
import { type DeliveryLog, DeliveryWorker } from '../delivery/worker.js';
import type { Clock } from '../kernel/clock.js';
import { type Metrics, serveMetrics } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import { DELIVERY_GRACE_MS } from './lifecycle.js';
import { openPushService, type PushService } from './push-service.js';

export interface Delivery {
  worker: DeliveryWorker;
  push: PushService;
  /** Stops claiming, lets pushes in flight finish (bounded), then closes the connection. */
  stop(): Promise<void>;
}

/** Delivery inside this process, unless `--workers` is 0. */
export async function startDelivery(
  config: ServerConfig,
  store: Store,
  clock: Clock,
  metrics: Metrics | undefined,
  log: DeliveryLog,
): Promise<Delivery | undefined> {
  if (config.workers === 0) return undefined;
  const push = await openPushService(config.apns, clock);
  if (!config.dev) warnOfSimulator(push);
  const worker = new DeliveryWorker({
    store,
    transport: push.transport,
    clock,
    concurrency: config.workers,
    leaseMs: config.leaseMs,
    log,
    ...(metrics ? { metrics } : {}),
  });
  worker.start();
  return {
    worker,
    push,
    stop: async () => {
      await worker.stop(DELIVERY_GRACE_MS);
      await push.close();
    },
  };
}

/** Outside dev mode, a process delivering to the built-in simulator says so: nothing reaches a device. */
function warnOfSimulator(push: PushService): void {
  if (!push.simulator) return;
  process.stderr.write(
    'foxbell-server: warning: delivering to the built-in APNs simulator: no notification reaches a real device. ' +
      'Give --apns production (or sandbox) with --apns-key-file, --apns-key-id and --apns-team-id; --dev for a trial\n',
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
