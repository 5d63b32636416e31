// Whether metrics scrapes move the API's latency when the database is large. A server (SQLite, or
// PostgreSQL with `--store postgres`) over ROWS destination rows serves /healthz to a steady
// load, alone and then while SCRAPERS clients scrape /metrics (each every 250 ms), in alternating
// rounds. The figure is the median /healthz latency under scraping; the baseline, the same
// without. A ratio near 1 means a scrape costs the API nothing that grows with the table.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openPostgresStore, openSqliteStore } from '@foxbell/server';
import { freePort } from '@foxbell/test-support/ports';
import pg from 'pg';
import { ADMIN, SERVER_BIN, start, stop } from './support/processes.js';
import { alternatingRounds, printResult } from './support/rounds.js';
import { median } from './support/stats.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SCRAPERS = Number(process.env.BENCH_SCRAPERS ?? 4);
const SCRAPE_EVERY_MS = Number(process.env.BENCH_SCRAPE_EVERY_MS ?? 250);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DATABASE_URL = process.env.FOXBELL_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const storeKind = process.argv.includes('--store')
  ? process.argv[process.argv.indexOf('--store') + 1]
  : 'sqlite';
if (storeKind !== 'sqlite' && storeKind !== 'postgres') {
  console.error('usage: pnpm bench metrics-scrape [--store sqlite|postgres]');
  process.exit(2);
}

const work = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-metrics-'));
const schema = `foxbell_bench_${randomBytes(4).toString('hex')}`;

const STATES = ['pending', 'sending', 'accepted', 'failed_permanent', 'expired', 'superseded', 'skipped'];
const NOW = Date.now();
/** One notification with ROWS destinations spread over every state, written straight into the tables. */
const NOTIFICATION = `
  INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status, created_at,
                             expires_at, routed_at)
  VALUES ('ntf_bench', 'acc_bench', 'tok_bench', 'req_bench', 'bench', '{}', 'sent_to_push', ${NOW},
          ${NOW + 3_600_000}, ${NOW})`;
const DESTINATIONS = `
  INSERT INTO destinations (notification_id, device_id, platform, state, attempts, updated_at, push_id,
                            created_at, expires_at)
  SELECT 'ntf_bench', 'dev_' || i, 'ios',
         CASE i % ${STATES.length} ${STATES.map((state, n) => `WHEN ${n} THEN '${state}'`).join(' ')} END,
         1, ${NOW}, '', ${NOW}, ${NOW + 3_600_000}
  FROM series`;

async function fill(): Promise<string[]> {
  if (storeKind === 'sqlite') {
    const data = path.join(work, 'data');
    await openSqliteStore({ dataDir: data }).close();
    const db = new DatabaseSync(path.join(data, 'foxbell.db'));
    db.exec('BEGIN');
    db.exec(NOTIFICATION);
    db.exec(
      `WITH RECURSIVE series(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM series WHERE i < ${ROWS}) ${DESTINATIONS}`,
    );
    db.exec('COMMIT');
    db.close();
    return [`--data=${data}`];
  }
  await (await openPostgresStore({ url: DATABASE_URL, schema, poolSize: 1 })).close();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(`SET search_path = ${schema}`);
  await db.query(NOTIFICATION);
  await db.query(`WITH series AS (SELECT generate_series(1, ${ROWS}) AS i) ${DESTINATIONS}`);
  await db.query('ANALYZE');
  await db.end();
  return [`--database=${DATABASE_URL}`, `--database-schema=${schema}`];
}

const filled = performance.now();
const storeArgs = await fill();
console.log(`${ROWS} destination rows written in ${((performance.now() - filled) / 1000).toFixed(1)} s`);
const metricsUrl = `http://127.0.0.1:${await freePort()}/metrics`;
const server = await start(
  [
    SERVER_BIN,
    '--port=0',
    `--admin-key=${ADMIN}`,
    '--log-level=warn',
    `--metrics=${new URL(metricsUrl).host}`,
    '--workers=0',
    ...storeArgs,
  ],
  /listening on (http:\/\/\S+)/,
);
const apiUrl = server.url;

const firstScrape = await (await fetch(metricsUrl)).text();
const counted = /^foxbell_destinations\{state="accepted"\} (\d+)$/m.exec(firstScrape)?.[1];
console.log(`a scrape reads foxbell_destinations{state="accepted"} ${counted}`);

/**
 * `SCRAPERS` clients each scraping every SCRAPE_EVERY_MS (or as soon as the last response came, when
 * it took longer) until `until`; returns how many scrapes got a response. A Prometheus scrapes every
 * 15 s or so: this is many times that, and short of saturating two cores with scrapes alone.
 */
async function scrape(until: number): Promise<number> {
  let scrapes = 0;
  await Promise.all(
    Array.from({ length: SCRAPERS }, async () => {
      while (performance.now() < until) {
        const next = performance.now() + SCRAPE_EVERY_MS;
        await (await fetch(metricsUrl)).text();
        scrapes += 1;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
      }
    }),
  );
  return scrapes;
}

/**
 * The median /healthz latency (ms, to the microsecond) over SECONDS of 8 clients asking back to
 * back, with scrapers or without. (Timed here: autocannon rounds latencies to whole milliseconds.)
 */
async function healthLatency(withScrapers: boolean): Promise<{ p50: number; scrapes: number }> {
  const until = performance.now() + SECONDS * 1000;
  const samples: number[] = [];
  const clients = Array.from({ length: 8 }, async () => {
    while (performance.now() < until) {
      const sent = performance.now();
      const response = await fetch(`${apiUrl}/healthz`);
      await response.text();
      if (response.status !== 200) throw new Error(`/healthz responded ${response.status}`);
      samples.push(performance.now() - sent);
    }
  });
  const [scrapes] = await Promise.all([withScrapers ? scrape(until) : Promise.resolve(0), ...clients]);
  return { p50: Math.round(median(samples) * 1000) / 1000, scrapes };
}

/** The scrapes each timed round's scrapers made, a second. */
const scrapesPerSecond: number[] = [];
const rounds = await alternatingRounds(
  ROUNDS,
  {
    scraped: async (round) => {
      const { p50, scrapes } = await healthLatency(true);
      if (round > 0) scrapesPerSecond.push(scrapes / SECONDS);
      return p50;
    },
    alone: async () => (await healthLatency(false)).p50,
  },
  (ms) => `/healthz p50 ${ms} ms`,
);
await stop(server.child);
if (storeKind === 'postgres') {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(`DROP SCHEMA ${schema} CASCADE`);
  await db.end();
}
await rm(work, { recursive: true, force: true });

console.log(
  `${cpus().length} CPUs, ${storeKind}, ${ROWS} destination rows, ${SCRAPERS} scrapers every ${SCRAPE_EVERY_MS} ms ` +
    `(${median(scrapesPerSecond).toFixed(0)} scrapes/s), ${ROUNDS} rounds of ${SECONDS} s`,
);
printResult(
  'metrics-scrape',
  `ms /healthz p50 under ${SCRAPERS} scrapers, ${storeKind}, ${ROWS} destinations`,
  rounds.scraped,
  rounds.alone,
  3,
);
