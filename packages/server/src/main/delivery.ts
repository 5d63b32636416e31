import type { Server } from 'node:http';
import { DEFAULT_WEB_PUSH_SUBJECT, type ServerConfig } from '../config/server-settings.js';
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
  const push = await openPushService(config, store, clock);
  if (!config.dev) warnOfStandIns(push, config);
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

/**
 * Outside dev mode, a process says what stands in for the real thing: the built-in simulator
 * (no APNs device gets anything), and a VAPID subject that is not the operator's.
 */
function warnOfStandIns(push: PushService, config: ServerConfig): void {
  if (push.simulator) {
    process.stderr.write(
      'foxbell-server: warning: delivering APNs devices to the built-in simulator: no app of theirs gets a notification. ' +
        'Give --apns production (or sandbox) with --apns-key-file, --apns-key-id and --apns-team-id; --dev for a trial\n',
    );
  }
  if (config.webPush.subject === undefined) {
    process.stderr.write(
      `foxbell-server: warning: Web Push is signed with the subject ${DEFAULT_WEB_PUSH_SUBJECT}: ` +
        'give --web-push-subject mailto:you@example.com, so push services can reach you about your pushes\n',
    );
  }
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
