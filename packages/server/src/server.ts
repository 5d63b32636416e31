import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildApp } from './app.js';
import { DAY_MS, MINUTE_MS, systemClock } from './clock.js';
import { readConfig, USAGE } from './config.js';
import { seedDevAccount } from './dev-seed.js';
import { randomBase62, randomIds } from './ids.js';
import { IDEMPOTENCY_KEY_LIFETIME_MS, NOTIFICATION_RETENTION_MS } from './retention.js';
import { openSqliteStore } from './store/sqlite.js';

/** How long a graceful stop waits for requests in flight before it closes anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
const PURGE_INTERVAL_MS = DAY_MS / 24;

async function main(): Promise<void> {
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
  const clock = systemClock;
  // In dev mode an admin key is made up when none is given, so every route can be tried.
  const adminKey = config.adminKey ?? (config.dev ? `fox_admin_${randomBase62(32)}` : undefined);
  const store = openSqliteStore({ dataDir: config.dataDir });
  const app = buildApp({
    store,
    clock,
    ids: randomIds,
    adminKey,
    limits: config.limits,
    logger: { level: config.logLevel, stream: process.stderr },
  });

  const purge = async () => {
    const now = clock.now();
    const purged = await store.purge({
      notificationsBefore: now - NOTIFICATION_RETENTION_MS,
      keysBefore: now - IDEMPOTENCY_KEY_LIFETIME_MS,
      windowsBefore: now - MINUTE_MS,
    });
    app.log.info(purged, 'purged expired notifications and idempotency keys');
  };
  await purge();
  const purgeTimer = setInterval(
    () => purge().catch((error) => app.log.error({ err: error }, 'purge failed')),
    PURGE_INTERVAL_MS,
  );
  purgeTimer.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: no new requests; waiting for those in flight');
    clearInterval(purgeTimer);
    const grace = setTimeout(() => {
      app.log.warn('requests still in flight after the grace period; closing anyway');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    grace.unref();
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  const address = await app.listen({ port: config.port, host: config.host });
  const baseUrl = address.replace('[::1]', 'localhost');
  if (config.dev) await announceDev(config.dataDir, baseUrl, adminKey);
  process.stdout.write(`foxbell-server listening on ${baseUrl}\n`);

  async function announceDev(dataDir: string, url: string, admin: string | undefined) {
    const file = path.join(dataDir, 'dev.json');
    const seeded = await seedDevAccount(store, randomIds, clock);
    if (seeded) {
      await writeFile(
        file,
        `${JSON.stringify({ token: seeded.token, account_key: seeded.accountKey }, null, 2)}\n`,
        {
          mode: 0o600,
        },
      );
      await chmod(file, 0o600);
    }
    const saved = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as { token?: string };
    process.stdout.write(
      [
        'Foxbell dev mode',
        `  base URL:   ${url}`,
        `  send token: ${saved.token ?? `(made on the first start; see ${file})`}`,
        ...(admin === undefined ? [] : [`  admin key:  ${admin}`]),
        `  secrets are kept in ${file}`,
        '',
      ].join('\n'),
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`foxbell-server: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
