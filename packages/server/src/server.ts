import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import { openPushService, type PushService } from './apns/connect.js';
import { buildApp } from './app.js';
import { type Clock, DAY_MS, MINUTE_MS, systemClock } from './clock.js';
import { readConfig, type ServerConfig, USAGE } from './config.js';
import { type DeliveryLog, DeliveryWorker } from './delivery/worker.js';
import { seedDevAccount } from './dev-seed.js';
import { devSessionFile, readDevSession, writeDevSession } from './dev-session.js';
import { TLS_POLICY } from './http/tls-policy.js';
import { randomBase62, randomIds } from './ids.js';
import { Metrics, serveMetrics } from './metrics.js';
import { IDEMPOTENCY_KEY_LIFETIME_MS, NOTIFICATION_RETENTION_MS } from './retention.js';
import { DataDirUnsafeError } from './store/data-dir.js';
import { describeDatabase, openStore } from './store/open.js';
import { DatabaseUnreachableError } from './store/postgres/open.js';
import { DataDirInUseError } from './store/sqlite/open.js';
import type { Store } from './store/store.js';

/** How long a graceful stop waits for requests in flight before it closes anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
/** How long it then waits for pushes in flight; those still out go back to the queue. */
const DELIVERY_GRACE_MS = 5_000;
const PURGE_INTERVAL_MS = DAY_MS / 24;

async function main(): Promise<void> {
  // Whatever the server makes from here on (the database's journal and lock files, a worker's
  // owner files) is its user's alone, as the start-time pass makes what was already there.
  process.umask(0o077);
  if (process.argv[2] === 'admin') {
    // A client of a running server: none of the server loads.
    const { runAdmin } = await import('./admin/run.js');
    process.exitCode = await runAdmin(process.argv.slice(3), {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
    });
    return;
  }
  const read = readConfig(process.argv.slice(2), process.env);
  if (read.ok === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (!read.ok) {
    for (const problem of read.problems) process.stderr.write(`foxbell-server: ${problem}\n`);
    process.stderr.write(`\n${USAGE}`);
    process.exit(2);
  }
  const { config } = read;
  for (const warning of read.warnings) process.stderr.write(`foxbell-server: warning: ${warning}\n`);
  const clock = systemClock;
  if (config.command === 'worker') return runWorker(config, clock);
  // In dev mode an admin key is made up when none is given, so every route can be tried.
  const adminKey = config.adminKey ?? (config.dev ? `fox_admin_${randomBase62(32)}` : undefined);
  const store = await openStore(config.database, 'api');
  let delivery: Delivery | undefined;
  let stopping = false;
  const metrics = config.metrics && new Metrics(store, clock);
  let metricsServer: Server | undefined;
  const devFile = devSessionFile(config.dataDir);
  const tls = config.tls && (await readTls(config.tls));
  const app = buildApp({
    ...(tls ? { tls } : {}),
    trustProxy: config.trustProxy,
    store,
    clock,
    ids: randomIds,
    adminKey,
    limits: config.limits,
    logger: { level: config.logLevel, stream: process.stderr },
    onQueued: () => delivery?.worker.poke(),
    health: {
      stopping: () => stopping,
      ...(config.workers > 0 ? { credentialRefused: () => delivery?.worker.credentialRefused ?? false } : {}),
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
            simulator: () => delivery?.push.simulator,
          },
        }
      : {}),
  });
  delivery = await startDelivery(config, store, clock, metrics, {
    error: (message, details) => app.log.error(details ?? {}, message),
  });

  const purge = async () => {
    const now = clock.now();
    const purged = await store.purge({
      notificationsBefore: now - NOTIFICATION_RETENTION_MS,
      keysBefore: now - IDEMPOTENCY_KEY_LIFETIME_MS,
      windowsBefore: now - MINUTE_MS,
      credentialsBefore: now - NOTIFICATION_RETENTION_MS,
    });
    app.log.info(purged, 'purged what is past its retention');
  };
  await purge();
  const purgeTimer = setInterval(
    () => purge().catch((error) => app.log.error({ err: error }, 'purge failed')),
    PURGE_INTERVAL_MS,
  );
  purgeTimer.unref();

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: no new requests; waiting for those in flight');
    clearInterval(purgeTimer);
    metricsServer?.close();
    const grace = setTimeout(() => {
      app.log.warn('requests still in flight after the grace period; closing anyway');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS + DELIVERY_GRACE_MS);
    grace.unref();
    await app.close();
    await delivery?.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  const files = config.tls;
  // SIGHUP reads again what can be read again, and never stops the process (its default).
  process.on('SIGHUP', () => {
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
  });

  const address = await app.listen({ port: config.port, host: config.host });
  const baseUrl = address.replace('[::1]', 'localhost');
  metricsServer = await announceMetrics(metrics, config);
  if (config.dev) await announceDev(baseUrl, adminKey);
  if (delivery && !config.dev) warnOfSimulator(delivery.push);
  if (delivery?.push.controlUrl) {
    process.stdout.write(`foxbell-server APNs simulator control API on ${delivery.push.controlUrl}\n`);
  }
  process.stdout.write(`foxbell-server listening on ${baseUrl}\n`);

  async function announceDev(url: string, admin: string | undefined) {
    const seeded = await seedDevAccount(store, randomIds, clock);
    if (seeded) await writeDevSession(config.dataDir, seeded);
    process.stdout.write(
      [
        'Foxbell dev mode',
        `  base URL:    ${url}`,
        `  device page: ${url}/devices`,
        // Shown on the start that made it; later starts point at the file.
        `  send token:  ${seeded ? seeded.token : `in ${devFile}`}`,
        ...(admin === undefined ? [] : [`  admin key:   ${admin}`]),
        `  secrets are kept in ${devFile}`,
        '',
      ].join('\n'),
    );
  }
}

/** The certificate chain and key files, read and checked as a pair (a mismatch throws here). */
async function readTls(files: { certFile: string; keyFile: string }): Promise<{ cert: Buffer; key: Buffer }> {
  try {
    const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
    createSecureContext({ cert, key });
    return { cert, key };
  } catch (error) {
    throw new TlsFilesError(files, error);
  }
}

/** The certificate or key cannot be read, or they are not a pair. */
class TlsFilesError extends Error {
  constructor(files: { certFile: string; keyFile: string }, cause: unknown) {
    const why = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    super(`cannot use --tls-cert ${files.certFile} with --tls-key ${files.keyFile}: ${why}`, { cause });
  }
}

/** Serves the metrics apart from the API when `--metrics` asks, and says where. */
async function announceMetrics(metrics: Metrics | undefined, config: ServerConfig) {
  if (!metrics || !config.metrics) return undefined;
  const { url, server } = await serveMetrics(metrics, config.metrics);
  process.stdout.write(`foxbell-server metrics on ${url}\n`);
  return server;
}

/** Outside dev mode, a process delivering to the built-in simulator says so: nothing reaches a device. */
function warnOfSimulator(push: PushService): void {
  if (!push.simulator) return;
  process.stderr.write(
    'foxbell-server: warning: delivering to the built-in APNs simulator: no notification reaches a real device. ' +
      'Give --apns production (or sandbox) with --apns-key-file, --apns-key-id and --apns-team-id; --dev for a trial\n',
  );
}

interface Delivery {
  worker: DeliveryWorker;
  push: PushService;
  /** Stops claiming, lets pushes in flight finish (bounded), then closes the connection. */
  stop(): Promise<void>;
}

/** Delivery inside this process, unless `--workers` is 0. */
async function startDelivery(
  config: ServerConfig,
  store: Store,
  clock: Clock,
  metrics: Metrics | undefined,
  log: DeliveryLog,
): Promise<Delivery | undefined> {
  if (config.workers === 0) return undefined;
  const push = await openPushService(config.apns, clock);
  const worker = new DeliveryWorker({
    store,
    sender: push.client,
    topics: push.topics,
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

/** `foxbell-server worker`: delivery only, on the database a server also uses. */
async function runWorker(config: ServerConfig, clock: Clock): Promise<void> {
  const store = await openStore(config.database, 'worker');
  const line = (level: 'info' | 'error', message: string, details?: Record<string, unknown>) =>
    process.stderr.write(`${JSON.stringify({ level, time: clock.now(), msg: message, ...details })}\n`);
  const log: DeliveryLog = { error: (message, details) => line('error', message, details) };
  const metrics = config.metrics && new Metrics(store, clock);
  const delivery = (await startDelivery(config, store, clock, metrics, log)) as Delivery;
  warnOfSimulator(delivery.push);
  let stopping = false;
  let metricsServer: Server | undefined;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    metricsServer?.close();
    const grace = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + DELIVERY_GRACE_MS);
    grace.unref();
    await delivery.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // A worker has nothing to read again; SIGHUP must not stop it (its default).
  process.on('SIGHUP', () => line('info', 'nothing to read again', { signal: 'SIGHUP' }));
  metricsServer = await announceMetrics(metrics, config);
  process.stdout.write(
    `foxbell-server worker ${delivery.worker.owner} delivering from ${describeDatabase(config.database)}\n`,
  );
}

main().catch((error: unknown) => {
  if (
    error instanceof DataDirInUseError ||
    error instanceof DataDirUnsafeError ||
    error instanceof TlsFilesError ||
    error instanceof DatabaseUnreachableError
  ) {
    process.stderr.write(`foxbell-server: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`foxbell-server: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
