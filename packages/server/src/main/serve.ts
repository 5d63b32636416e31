import type { Server as TlsServer } from 'node:tls';
import { buildApp } from '../app.js';
import type { ServerConfig } from '../config/server-settings.js';
import { devModeBanner } from '../dev/announce.js';
import { readDevSession } from '../dev/session.js';
import { TLS_POLICY } from '../http/tls/policy.js';
import type { Clock } from '../kernel/clock.js';
import { randomBase62, randomIds } from '../kernel/ids.js';
import { PURGE_INTERVAL_MS } from '../kernel/retention.js';
import { Metrics } from '../metrics/metrics.js';
import { openStore } from '../store/open.js';
import { sweepRetention } from '../store/retention-sweep.js';
import { handleSignals } from './lifecycle.js';
import { pushProviders } from './push-providers.js';
import { announceMetrics, type Delivery, deliveryLogOf, startDelivery } from './start-delivery.js';
import { readTls } from './tls-files.js';

/** `foxbell-server`: the API, and delivery in the same process unless `--workers` is 0. */
export async function serve(config: ServerConfig, clock: Clock): Promise<void> {
  // In dev mode an admin key is made up when none is given, so every route can be tried.
  const adminKey = config.adminKey ?? (config.dev ? `fox_admin_${randomBase62(32)}` : undefined);
  const store = await openStore(config.database, 'api');
  let delivery: Delivery | undefined;
  let signals: { stopping(): boolean } | undefined;
  const push = await pushProviders(config, store, clock);
  const metrics =
    config.metrics &&
    new Metrics(
      store,
      clock,
      push.providers.map((provider) => provider.id),
    );
  const tls = config.tls && (await readTls(config.tls));
  const app = buildApp({
    providers: push.providers,
    ...(tls ? { tls } : {}),
    trustProxy: config.trustProxy,
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    store,
    clock,
    ids: randomIds,
    adminKey,
    limits: config.limits,
    logger: { level: config.logLevel, stream: process.stderr },
    onQueued: () => delivery?.worker.poke(),
    health: {
      stopping: () => signals?.stopping() ?? false,
      ...(config.workers > 0 ? { push: () => delivery?.pushStates() ?? {} } : {}),
    },
    ...(metrics ? { metrics } : {}),
    ...(config.dev
      ? {
          devPage: {
            session: async () => {
              const accountId = await store.getSetting('dev_account');
              const saved = await readDevSession(config.dataDir);
              return accountId && saved ? { accountId, accountKey: saved.accountKey } : undefined;
            },
            simulator: () => push.simulator?.running,
          },
        }
      : {}),
  });
  delivery = await startDelivery(config, store, clock, push, metrics, deliveryLogOf(app.log));

  // Retention sweeps once the server is serving, then every PURGE_INTERVAL_MS, in batches that
  // sends go on between: a start after a long stop (weeks to sweep) is not held up by it.
  const stopSweeping = new AbortController();
  let sweeping: Promise<void> | undefined;
  const sweep = () => {
    sweeping ??= sweepRetention(store, clock, { signal: stopSweeping.signal })
      .then(
        (purged) => app.log.info(purged, 'purged what is past its retention'),
        (error: unknown) => app.log.error({ err: error }, 'retention sweep failed'),
      )
      .finally(() => {
        sweeping = undefined;
      });
  };
  const purgeTimer = setInterval(sweep, PURGE_INTERVAL_MS);
  purgeTimer.unref();

  const metricsServer = await announceMetrics(metrics, config);
  const files = config.tls;
  signals = handleSignals({
    drainMs: config.drainMs,
    stop: async (signal) => {
      if (config.drainMs > 0) {
        // /readyz responds with 503 from now: a load balancer's next health check sends requests elsewhere.
        app.log.info(
          { signal, drain_seconds: config.drainMs / 1000 },
          'stopping: not ready; serving on meanwhile',
        );
        await new Promise((resolve) => setTimeout(resolve, config.drainMs));
      }
      app.log.info({ signal }, 'stopping: no new requests; waiting for those in flight');
      clearInterval(purgeTimer);
      stopSweeping.abort();
      metricsServer?.close();
      await app.close();
      await delivery?.stop();
      await sweeping;
      await store.close();
    },
    onOvertime: () => app.log.warn('requests still in flight after the grace period; closing anyway'),
    reload: () => {
      if (!files) {
        app.log.info({ signal: 'SIGHUP' }, 'nothing to read again: no --tls-cert');
        return;
      }
      // A renewed certificate is taken without a restart: connections made from now on get it.
      readTls(files).then(
        (renewed) => {
          (app.server as unknown as TlsServer).setSecureContext({ ...TLS_POLICY, ...renewed });
          app.log.info({ cert: files.certFile }, 'certificate and key read again');
        },
        (error: unknown) =>
          app.log.error({ err: error }, 'reading the certificate or key failed; the ones in use stay'),
      );
    },
  });

  const address = await app.listen({ port: config.port, host: config.host });
  const baseUrl = address.replace('[::1]', 'localhost');
  if (config.dev) process.stdout.write(await devModeBanner(store, clock, config.dataDir, baseUrl, adminKey));
  const simulatorAnnouncement = push.simulator?.announcement;
  if (simulatorAnnouncement) process.stdout.write(simulatorAnnouncement);
  process.stdout.write(`foxbell-server listening on ${baseUrl}\n`);
  sweep();
}
