import type { ServerConfig } from '../config/server-settings.js';
import type { DeliveryLog } from '../delivery/worker.js';
import type { Clock } from '../kernel/clock.js';
import { Metrics } from '../metrics/metrics.js';
import { describeDatabase, openStore } from '../store/open.js';
import { handleSignals } from './lifecycle.js';
import { pushProviders } from './push-providers.js';
import { announceMetrics, type Delivery, startDelivery } from './start-delivery.js';

/** `foxbell-server worker`: delivery only, on the database a server also uses. */
export async function runWorker(config: ServerConfig, clock: Clock): Promise<void> {
  const store = await openStore(config.database, 'worker');
  // Pino's order of levels, as the API's log uses them: a line is written from --log-level up.
  const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
  const line = (level: 'info' | 'warn' | 'error', message: string, details?: Record<string, unknown>) => {
    const from = LEVELS.indexOf(config.logLevel);
    if (from === -1 || LEVELS.indexOf(level) < from) return;
    process.stderr.write(`${JSON.stringify({ level, time: clock.now(), msg: message, ...details })}\n`);
  };
  const log: DeliveryLog = {
    error: (message, details) => line('error', message, details),
    warn: (message, details) => line('warn', message, details),
    info: (message, details) => line('info', message, details),
  };
  const push = await pushProviders(config, store, clock);
  const metrics =
    config.metrics &&
    new Metrics(
      store,
      clock,
      push.providers.map((provider) => provider.id),
    );
  const delivery = (await startDelivery(config, store, clock, push, metrics, log)) as Delivery;
  const metricsServer = await announceMetrics(metrics, config);
  handleSignals({
    stop: async () => {
      metricsServer?.close();
      await delivery.stop();
      await store.close();
    },
    // A worker has nothing to read again.
    reload: () => line('info', 'nothing to read again', { signal: 'SIGHUP' }),
  });
  process.stdout.write(
    `foxbell-server worker ${delivery.worker.owner} delivering from ${describeDatabase(config.database)}\n`,
  );
}
