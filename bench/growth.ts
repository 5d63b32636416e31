// pnpm bench growth: whether a server's costs stay flat as its data grows. The real server (API and
// its delivery workers in one process, pushing to the APNs simulator) on an empty database and on
// one holding a month of notifications (300,000 on SQLite, 150,000 on PostgreSQL, with their
// destinations), measured alternately: accepted sends a second through the API, and the p99 of a
// status read and of an inbox page at a steady rate. The stored month is written by SQL, as the
// server writes its rows, over the bench's own accounts and devices (made through the API); the
// measured sends, reads and pages all go through the API.
//
// Then retention: a day of notifications past their 30 days is added, and the server started again,
// so that its sweep runs while sends arrive at a steady rate from the moment it listens; their p99
// is set against that of a start with nothing to sweep, and the database's size is read after each
// sweep, to see that deleted rows make room for new ones instead of the file growing.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { randomIds } from '@foxbell/server';
import autocannon from 'autocannon';
import pg from 'pg';
import { NOTIFICATION } from './support/loaded-store.js';
import {
  ADMIN,
  NO_LIMITS,
  post,
  rotatingTokens,
  SERVER_BIN,
  start,
  startApnsSimulator,
  stop,
} from './support/processes.js';
import { alternatingRounds, printRatios } from './support/rounds.js';
import { median } from './support/stats.js';

const DAY_MS = 86_400_000;
const RETENTION_DAYS = 30;
const FILL = {
  sqlite: Number(process.env.BENCH_FILL_SQLITE ?? 300_000),
  postgres: Number(process.env.BENCH_FILL_POSTGRES ?? 150_000),
};
const STORES = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',') as (keyof typeof FILL)[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Seconds of sends at full speed, per side and round. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Status reads and inbox pages a second, and for how long: a steady rate, so the p99 is the reads' own. */
const READ_RATE = Number(process.env.BENCH_READ_RATE ?? 200);
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 4);
/** Sends a second while the server starts and sweeps, and for how long. */
const SWEEP_RATE = Number(process.env.BENCH_SWEEP_RATE ?? 200);
const SWEEP_SECONDS = Number(process.env.BENCH_SWEEP_SECONDS ?? 6);
const SWEEP_CYCLES = Number(process.env.BENCH_SWEEP_CYCLES ?? 3);
/**
 * Seconds from the start whose sends the warm p99 leaves out: a fresh process's first sends pay
 * for its first database connections and compiling its code, with or without a sweep.
 */
const SWEEP_WARM_SECONDS = Number(process.env.BENCH_SWEEP_WARM_SECONDS ?? 1);
const ACCOUNTS = 32;
const DATABASE_URL = process.env.FOXBELL_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const GOALS = { sends: 0.8, p99: 1.5, sweep: 2 };

const work = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-growth-'));
const sim = await startApnsSimulator(work);
const serverArgs = [
  SERVER_BIN,
  '--port=0',
  `--admin-key=${ADMIN}`,
  '--log-level=warn',
  '--web-push-subject=mailto:bench@example.com',
  ...sim.serverArgs,
  ...NO_LIMITS,
];
const LISTENING = /listening on (http:\/\/\S+)/;

/** The bench's own view of a database: what it writes and reads there by SQL. */
interface Database {
  args: string[];
  /** Stores `count` delivered notifications to `owners`, created evenly from `from` to `to`. */
  fill(owners: Owner[], count: number, from: number, to: number): Promise<void>;
  /** Sends not yet pushed: routing or a push still to do. */
  backlog(): Promise<number>;
  /** Notifications created before `at`. */
  olderThan(at: number): Promise<number>;
  /** Bytes the database takes on disk. */
  size(): Promise<number>;
  close(): Promise<void>;
}

/** An account of the bench: its key, a send token, the token's and the iPhone's ids. */
interface Owner {
  accountId: string;
  key: string;
  token: string;
  tokenId: string;
  deviceId: string;
}

/** One stored notification and its one destination, as the server writes a delivered send. */
function storedRow(owner: Owner, createdAt: number, i: number) {
  return {
    id: randomIds.id('ntf'),
    accountId: owner.accountId,
    tokenId: owner.tokenId,
    requestId: randomIds.id('req'),
    payload: JSON.stringify({ ...NOTIFICATION, message: `Build #${i} passed on main` }),
    createdAt,
    expiresAt: createdAt + NOTIFICATION.ttl * 1000,
    deviceId: owner.deviceId,
    pushId: randomUUID(),
  };
}

function sqliteDatabase(dir: string): Database {
  const file = path.join(dir, 'foxbell.db');
  let db: DatabaseSync | undefined;
  const open = () => {
    db ??= new DatabaseSync(file, { timeout: 10_000 });
    return db;
  };
  return {
    args: [`--data=${dir}`],
    async fill(owners, count, from, to) {
      const db = open();
      const notification = db.prepare(
        `INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status, created_at,
           expires_at, routed_at) VALUES (?, ?, ?, ?, 'Bench', ?, 'sent_to_push', ?, ?, ?)`,
      );
      const destination = db.prepare(
        `INSERT INTO destinations (notification_id, device_id, platform, state, push_status, attempts, next_attempt_at,
           updated_at, push_id, created_at, expires_at) VALUES (?, ?, 'ios', 'accepted', 200, 1, ?, ?, ?, ?, ?)`,
      );
      for (let done = 0; done < count; ) {
        db.exec('BEGIN');
        for (const end = Math.min(count, done + 20_000); done < end; done++) {
          const at = Math.round(from + ((to - from) * done) / count);
          const row = storedRow(owners[done % owners.length] as Owner, at, done);
          notification.run(
            row.id,
            row.accountId,
            row.tokenId,
            row.requestId,
            row.payload,
            at,
            row.expiresAt,
            at,
          );
          destination.run(row.id, row.deviceId, at, at + 50, row.pushId, at, row.expiresAt);
        }
        db.exec('COMMIT');
      }
    },
    async backlog() {
      const row = open()
        .prepare(
          `SELECT (SELECT count(*) FROM notifications WHERE routed_at IS NULL)
             + (SELECT count(*) FROM destinations WHERE state IN ('pending', 'sending')) AS n`,
        )
        .get() as { n: number };
      return Number(row.n);
    },
    async olderThan(at) {
      const row = open().prepare('SELECT count(*) AS n FROM notifications WHERE created_at < ?').get(at) as {
        n: number;
      };
      return Number(row.n);
    },
    async size() {
      let bytes = 0;
      for (const name of ['foxbell.db', 'foxbell.db-wal']) {
        bytes += await stat(path.join(dir, name)).then(
          (s) => s.size,
          () => 0,
        );
      }
      return bytes;
    },
    async close() {
      db?.close();
      db = undefined;
    },
  };
}

async function postgresDatabase(schema: string): Promise<Database> {
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  // The state counters' triggers name their table without its schema.
  await db.query(`SET search_path = ${schema}`);
  let closed = false;
  const one = async (sql: string, values: unknown[] = []) => Number((await db.query(sql, values)).rows[0].n);
  return {
    args: [`--database=${DATABASE_URL}`, `--database-schema=${schema}`],
    async fill(owners, count, from, to) {
      for (let done = 0; done < count; ) {
        const rows: ReturnType<typeof storedRow>[] = [];
        for (const end = Math.min(count, done + 10_000); done < end; done++) {
          rows.push(
            storedRow(
              owners[done % owners.length] as Owner,
              Math.round(from + ((to - from) * done) / count),
              done,
            ),
          );
        }
        const column = <K extends keyof (typeof rows)[number]>(name: K) => rows.map((row) => row[name]);
        await db.query(
          `WITH n AS (
             INSERT INTO ${schema}.notifications (id, account_id, token_id, request_id, sender_name, payload, status,
               created_at, expires_at, routed_at)
             SELECT id, account_id, token_id, request_id, 'Bench', payload, 'sent_to_push', created_at, expires_at, created_at
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])
               AS r(id, account_id, token_id, request_id, payload, created_at, expires_at)
           )
           INSERT INTO ${schema}.destinations (notification_id, device_id, platform, state, push_status, attempts,
             next_attempt_at, updated_at, push_id, created_at, expires_at)
           SELECT id, device_id, 'ios', 'accepted', 200, 1, created_at, created_at + 50, push_id, created_at, expires_at
           FROM unnest($1::text[], $8::text[], $9::text[], $6::bigint[], $7::bigint[])
             AS r(id, device_id, push_id, created_at, expires_at)`,
          [
            column('id'),
            column('accountId'),
            column('tokenId'),
            column('requestId'),
            column('payload'),
            column('createdAt'),
            column('expiresAt'),
            column('deviceId'),
            column('pushId'),
          ],
        );
      }
      // As autovacuum would have by the time a month of sends is stored.
      await db.query(`ANALYZE ${schema}.notifications, ${schema}.destinations`);
    },
    backlog: () =>
      one(
        `SELECT (SELECT count(*) FROM ${schema}.route_queue)
           + (SELECT count(*) FROM ${schema}.destinations WHERE state IN ('pending', 'sending')) AS n`,
      ),
    olderThan: (at) => one(`SELECT count(*) AS n FROM ${schema}.notifications WHERE created_at < $1`, [at]),
    size: () =>
      one(
        `SELECT sum(pg_total_relation_size(c.oid)) AS n FROM pg_class c
         JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      ),
    async close() {
      if (closed) return;
      closed = true;
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.end();
    },
  };
}

/** A server on `database`, with ACCOUNTS accounts made through its API once. */
class Side {
  server: { child: import('node:child_process').ChildProcess; url: string } | undefined;
  owners: Owner[] = [];
  /** Status records to read: one send of each account. */
  records: { token: string; path: string }[] = [];

  constructor(readonly database: Database) {}

  /** Starts the server; resolves once it listens, with how long that took in ms. */
  async start(): Promise<number> {
    const began = performance.now();
    this.server = await start([...serverArgs, ...this.database.args], LISTENING);
    return performance.now() - began;
  }

  async stop(): Promise<void> {
    if (this.server) await stop(this.server.child);
    this.server = undefined;
  }

  get url(): string {
    return (this.server as { url: string }).url;
  }

  async makeAccounts(): Promise<void> {
    for (let i = 0; i < ACCOUNTS; i++) {
      const account = await post(`${this.url}/v1/accounts`, ADMIN, {});
      const device = await post(`${this.url}/v1/devices`, account.key as string, {
        name: 'iPhone',
        platform: 'ios',
        push_token: randomBytes(32).toString('hex'),
      });
      const token = await post(`${this.url}/v1/tokens`, account.key as string, {});
      this.owners.push({
        accountId: account.id as string,
        key: account.key as string,
        token: token.token as string,
        tokenId: token.id as string,
        deviceId: device.id as string,
      });
    }
    for (const owner of this.owners) {
      const sent = await post(`${this.url}/v1/notifications`, owner.token, { message: 'Deploy finished' });
      this.records.push({ token: owner.token, path: `/v1/notifications/${sent.id}/status` });
    }
  }

  /** Waits until every send so far is pushed, so that one measure does not pay for the last one's. */
  async settled(): Promise<void> {
    const deadline = Date.now() + 120_000;
    while ((await this.database.backlog()) > 0) {
      if (Date.now() > deadline) throw new Error('sends still not pushed after 120 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function checked(result: autocannon.Result, what: string): autocannon.Result {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${what}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return result;
}

/** Accepted sends a second, every account's token in turn, as fast as CONNECTIONS allow. */
async function sendRate(side: Side, seconds: number): Promise<number> {
  const result = checked(
    await autocannon({
      url: `${side.url}/v1/notifications`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: seconds,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Build #812 passed on main', title: 'CI', scene: 'rocket' }),
      requests: rotatingTokens(side.owners.map((owner) => owner.token)),
    }),
    'sends',
  );
  return result.requests.total / seconds;
}

/** The p99 in ms of GETs at READ_RATE a second, each the next of `requests` (a path and a credential). */
async function readP99(url: string, requests: { path: string; credential: string }[], seconds: number) {
  let next = 0;
  const result = checked(
    await autocannon({
      url,
      connections: 8,
      overallRate: READ_RATE,
      duration: seconds,
      requests: [
        {
          setupRequest: (request) => {
            next = (next + 1) % requests.length;
            const one = requests[next] as (typeof requests)[number];
            return {
              ...request,
              path: one.path,
              headers: { ...request.headers, authorization: `Bearer ${one.credential}` },
            };
          },
        },
      ],
    }),
    'reads',
  );
  return result.latency.p99;
}

interface Measured {
  sends: number;
  statusP99: number;
  inboxP99: number;
}

async function measure(side: Side, round: number): Promise<Measured> {
  const seconds = round === 0 ? 1 : SECONDS;
  const readSeconds = round === 0 ? 1 : READ_SECONDS;
  const sends = await sendRate(side, seconds);
  await side.settled();
  const statusP99 = await readP99(
    side.url,
    side.records.map((record) => ({ path: record.path, credential: record.token })),
    readSeconds,
  );
  const inboxP99 = await readP99(
    side.url,
    side.owners.map((owner) => ({ path: '/v1/inbox', credential: owner.key })),
    readSeconds,
  );
  return { sends, statusP99, inboxP99 };
}

/** One POST on a kept-alive connection of `agent`; resolves with its status. */
function postOnce(agent: http.Agent, url: string, token: string, body: string) {
  return new Promise<number>((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

/**
 * Starts the server and sends SWEEP_RATE a second from the moment it listens, for SWEEP_SECONDS,
 * each send on its own schedule (an open loop: a stalled answer does not hold back the sends after
 * it). While they run, counts what is past retention every 50 ms, to see when the sweep ended.
 */
async function startAndSend(side: Side) {
  const expiredBefore = Date.now() - RETENTION_DAYS * DAY_MS;
  const listenMs = await side.start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const began = performance.now();
  let sweptAt: number | undefined;
  const watching = (async () => {
    while (performance.now() - began < SWEEP_SECONDS * 1000 + 2000) {
      if ((await side.database.olderThan(expiredBefore)) === 0) {
        sweptAt = performance.now() - began;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const body = JSON.stringify({ message: 'Build #812 passed on main', title: 'CI' });
  const count = SWEEP_RATE * SWEEP_SECONDS;
  const latencies = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const wait = began + (i * 1000) / SWEEP_RATE - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sent = performance.now();
      const owner = side.owners[i % side.owners.length] as Owner;
      const status = await postOnce(agent, `${side.url}/v1/notifications`, owner.token, body);
      if (status !== 202) throw new Error(`send: ${status}`);
      return { at: sent - began, ms: performance.now() - sent };
    }),
  );
  await watching;
  agent.destroy();
  await side.settled();
  await side.stop();
  const warm = latencies.filter((send) => send.at >= SWEEP_WARM_SECONDS * 1000).map((send) => send.ms);
  return {
    p99: percentile(
      latencies.map((send) => send.ms),
      99,
    ),
    warmP99: percentile(warm, 99),
    listenMs,
    sweptMs: sweptAt,
  };
}

/** Sweeps with and without a day past retention, in turned order; the database's size after each. */
async function sweeps(side: Side, fill: number) {
  const day = Math.round(fill / RETENTION_DAYS);
  const runs: {
    without: number[];
    during: number[];
    warmWithout: number[];
    warmDuring: number[];
    listenWithout: number[];
    listenDuring: number[];
  } = { without: [], during: [], warmWithout: [], warmDuring: [], listenWithout: [], listenDuring: [] };
  const sizes: number[] = [];
  const sweptMs: (number | undefined)[] = [];
  await side.stop();
  for (let cycle = 1; cycle <= SWEEP_CYCLES; cycle++) {
    const plain = async () => {
      const run = await startAndSend(side);
      runs.without.push(run.p99);
      runs.warmWithout.push(run.warmP99);
      runs.listenWithout.push(run.listenMs);
    };
    const swept = async () => {
      const now = Date.now();
      await side.database.fill(
        side.owners,
        day,
        now - (RETENTION_DAYS + 1) * DAY_MS,
        now - RETENTION_DAYS * DAY_MS - 60_000,
      );
      const run = await startAndSend(side);
      runs.during.push(run.p99);
      runs.warmDuring.push(run.warmP99);
      runs.listenDuring.push(run.listenMs);
      sweptMs.push(run.sweptMs);
      sizes.push(await side.database.size());
    };
    for (const step of cycle % 2 === 1 ? [plain, swept] : [swept, plain]) await step();
    console.log(
      `sweep ${cycle}: p99 of sends ${runs.without.at(-1)?.toFixed(0)} ms without a sweep, ` +
        `${runs.during.at(-1)?.toFixed(0)} ms during the sweep of ${day} notifications ` +
        `(after the first ${SWEEP_WARM_SECONDS} s: ${runs.warmWithout.at(-1)?.toFixed(0)} and ` +
        `${runs.warmDuring.at(-1)?.toFixed(0)} ms) ` +
        `(swept ${sweptMs.at(-1)?.toFixed(0) ?? 'not'} ms after listening; listening after ` +
        `${runs.listenWithout.at(-1)?.toFixed(0)} and ${runs.listenDuring.at(-1)?.toFixed(0)} ms); ` +
        `database ${((sizes.at(-1) as number) / 1e6).toFixed(1)} MB`,
    );
  }
  return { runs, sizes, sweptMs, day };
}

const results: Record<string, unknown> = {};
const met: boolean[] = [];
const sides: Side[] = [];
let schemas = 0;
try {
  for (const store of STORES) {
    const open = async () => {
      if (store === 'sqlite') return sqliteDatabase(await mkdtemp(path.join(work, 'sqlite-')));
      schemas += 1;
      return postgresDatabase(`foxbell_bench_growth_${randomBytes(3).toString('hex')}_${schemas}`);
    };
    const empty = new Side(await open());
    const filled = new Side(await open());
    sides.push(empty, filled);
    for (const side of [empty, filled]) {
      await side.start();
      await side.makeAccounts();
    }
    const now = Date.now();
    const began = performance.now();
    await filled.database.fill(filled.owners, FILL[store], now - (RETENTION_DAYS - 1) * DAY_MS, now - 60_000);
    console.log(
      `${store}: ${FILL[store]} notifications stored in ${((performance.now() - began) / 1000).toFixed(1)} s, ` +
        `${((await filled.database.size()) / 1e6).toFixed(1)} MB`,
    );
    const runs: Record<'empty' | 'filled', Measured[]> = { empty: [], filled: [] };
    const rounds = await alternatingRounds(
      ROUNDS,
      {
        empty: async (round) => {
          const measured = await measure(empty, round);
          if (round > 0) runs.empty.push(measured);
          return measured.sends;
        },
        filled: async (round) => {
          const measured = await measure(filled, round);
          if (round > 0) runs.filled.push(measured);
          return measured.sends;
        },
      },
      (rate) => `${rate.toFixed(0)} sends/s`,
    );
    for (const [i, f] of runs.filled.entries()) {
      const e = runs.empty[i] as Measured;
      console.log(
        `${store} round ${i + 1}: status p99 ${e.statusP99} / ${f.statusP99} ms, inbox p99 ${e.inboxP99} / ${f.inboxP99} ms (empty / filled)`,
      );
    }
    const sends = printRatios(`${store}: sends/s, filled / empty`, rounds.filled, rounds.empty);
    const status = printRatios(
      `${store}: status read p99, filled / empty`,
      runs.filled.map((run) => run.statusP99),
      runs.empty.map((run) => run.statusP99),
    );
    const inbox = printRatios(
      `${store}: inbox page p99, filled / empty`,
      runs.filled.map((run) => run.inboxP99),
      runs.empty.map((run) => run.inboxP99),
    );
    await empty.stop();
    const sweep = await sweeps(filled, FILL[store]);
    const sweepRatio = printRatios(
      `${store}: send p99, during a sweep / without`,
      sweep.runs.during,
      sweep.runs.without,
    );
    const warmRatio = printRatios(
      `${store}: send p99 after the first ${SWEEP_WARM_SECONDS} s, during a sweep / without`,
      sweep.runs.warmDuring,
      sweep.runs.warmWithout,
    );
    const grown = (sweep.sizes.at(-1) as number) / (sweep.sizes[0] as number);
    results[store] = {
      stored: FILL[store],
      sends_per_s: { empty: Math.round(median(rounds.empty)), filled: Math.round(median(rounds.filled)) },
      sends_ratio: sends,
      status_p99_ratio: status,
      inbox_p99_ratio: inbox,
      sweep: {
        notifications: sweep.day,
        p99_ms: {
          without: Math.round(median(sweep.runs.without)),
          during: Math.round(median(sweep.runs.during)),
        },
        ratio: sweepRatio,
        warm_p99_ms: {
          without: Math.round(median(sweep.runs.warmWithout)),
          during: Math.round(median(sweep.runs.warmDuring)),
        },
        warm_ratio: warmRatio,
        swept_ms: sweep.sweptMs.map((ms) => (ms === undefined ? null : Math.round(ms))),
        listening_ms: {
          without: Math.round(median(sweep.runs.listenWithout)),
          during: Math.round(median(sweep.runs.listenDuring)),
        },
        size_mb: sweep.sizes.map((bytes) => Number((bytes / 1e6).toFixed(1))),
        size_growth: Number(grown.toFixed(3)),
      },
    };
    met.push(
      sends >= GOALS.sends &&
        status <= GOALS.p99 &&
        inbox <= GOALS.p99 &&
        sweepRatio <= GOALS.sweep &&
        grown <= 1.05,
    );
    for (const side of [empty, filled]) {
      await side.stop();
      await side.database.close();
    }
  }
} finally {
  for (const side of sides) {
    await side.stop().catch(() => {});
    await side.database.close().catch(() => {});
  }
  await stop(sim.child);
  await rm(work, { recursive: true, force: true });
}

console.log(
  `${cpus().length} CPUs; sends: ${CONNECTIONS} connections over ${ACCOUNTS} accounts, ${SECONDS} s a side, ${ROUNDS} rounds ` +
    `in turned order, medians; reads and pages at ${READ_RATE}/s for ${READ_SECONDS} s; sweeps: ${SWEEP_RATE} sends/s for ` +
    `${SWEEP_SECONDS} s from the start; goals: sends ≥ ${GOALS.sends}, p99s ≤ ${GOALS.p99}×, during a sweep ≤ ${GOALS.sweep}×, size flat`,
);
const main = (STORES.includes('postgres') ? results.postgres : results[STORES[0] as string]) as {
  sends_per_s: { empty: number; filled: number };
  sends_ratio: number;
};
console.log(
  JSON.stringify({
    bench: 'growth',
    value: main.sends_per_s.filled,
    unit: `accepted sends/s with a month stored (${STORES.includes('postgres') ? 'PostgreSQL' : STORES[0]})`,
    baseline: main.sends_per_s.empty,
    ratio: main.sends_ratio,
    ...results,
    met: met.every(Boolean),
  }),
);
