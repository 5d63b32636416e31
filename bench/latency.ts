// pnpm bench latency: how long a send takes to reach a phone. At steady rates, the time from a
// send's 202 (as its client reads it) to the push service's response for its destination, against
// the APNs simulator holding each response for a realistic round trip. On SQLite in one process,
// and on PostgreSQL with an API process and a worker process apart, that worker woken by
// LISTEN/NOTIFY (ours) and by its poll alone (the baseline).
//
// Each figure is split in three: waiting to be routed (202 → routed_at), waiting for a push slot
// and the request's way out (routed_at → the simulator has the push), and the push itself (the
// simulator has it → its response, which is the round trip it was given).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newProviderKeyPem } from '@foxbell/server';
import { ApnsSimulator } from '@foxbell/server/simulator';
import pg from 'pg';
import { ADMIN, NO_LIMITS, post, SERVER_BIN, start, stop } from './support/processes.js';
import { printRatios } from './support/rounds.js';
import { median } from './support/stats.js';

const ROUND_TRIP_MS = Number(process.env.BENCH_ROUND_TRIP_MS ?? 40);
const RATES = (process.env.BENCH_RATES ?? '20,200,1000').split(',').map(Number);
/** Sends at each rate: a few seconds of it, enough for a p99 of its own. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DATABASE_URL = process.env.FOXBELL_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The goals: a p99 within this much of the round trip, at 200 sends a second. */
const GOAL_SQLITE_MS = 60;
const GOAL_POSTGRES_MS = 150;

const work = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-latency-'));
const key = { keyId: 'BENCHKEY01', teamId: 'BENCHTEAM1', keyPem: newProviderKeyPem() };
await writeFile(path.join(work, 'key.p8'), key.keyPem);
const sim = await ApnsSimulator.start({
  cleartext: true,
  keys: [key],
  roundTripMs: ROUND_TRIP_MS,
  history: { perDevice: 10, total: 10 },
});
/** When the simulator had each notification's push, and when it responded, by notification id. */
const pushed = new Map<string, { received: number; responded: number }>();
sim.onPush((push) => {
  const id = (push.payload as { foxbell?: { id?: string } }).foxbell?.id;
  // Called as the simulator responds, the round trip after the push came in.
  if (id !== undefined) pushed.set(id, { received: Date.now() - ROUND_TRIP_MS, responded: Date.now() });
});
const apnsArgs = [
  `--apns-url=${sim.url}`,
  `--apns-key-file=${path.join(work, 'key.p8')}`,
  `--apns-key-id=${key.keyId}`,
  `--apns-team-id=${key.teamId}`,
];
const common = [
  SERVER_BIN,
  '--port=0',
  `--admin-key=${ADMIN}`,
  '--log-level=warn',
  '--web-push-subject=mailto:bench@example.com',
  ...NO_LIMITS,
];
const LISTENING = /listening on (http:\/\/\S+)/;

interface Setup {
  url: string;
  /** routed_at of each notification, by id, once the run is over. */
  routedAt(ids: string[]): Promise<Map<string, number>>;
  close(): Promise<void>;
}

async function sqliteSetup(): Promise<Setup> {
  const data = path.join(work, `sqlite-${randomBytes(4).toString('hex')}`);
  const server = await start([...common, ...apnsArgs, `--data=${data}`], LISTENING);
  return {
    url: server.url,
    routedAt: async (ids) => {
      const { DatabaseSync } = await import('node:sqlite');
      const db = new DatabaseSync(path.join(data, 'foxbell.db'), { readOnly: true });
      const rows = db
        .prepare(`SELECT id, routed_at FROM notifications WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)) as { id: string; routed_at: number }[];
      db.close();
      return new Map(rows.map((row) => [row.id, Number(row.routed_at)]));
    },
    close: async () => {
      await stop(server.child);
      await rm(data, { recursive: true, force: true });
    },
  };
}

async function postgresSetup(wake: 'notify' | 'poll'): Promise<Setup> {
  const schema = `foxbell_bench_${randomBytes(4).toString('hex')}`;
  const database = [`--database=${DATABASE_URL}`, `--database-schema=${schema}`];
  const api = await start([...common, ...database, '--no-workers'], LISTENING);
  const worker = await start(
    [SERVER_BIN, 'worker', ...database, ...apnsArgs, '--log-level=warn', `--queue-wake=${wake}`],
    /worker (wrk_\w+) delivering/,
  );
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  return {
    url: api.url,
    routedAt: async (ids) => {
      const { rows } = await db.query(
        `SELECT id, routed_at FROM ${schema}.notifications WHERE id = ANY($1)`,
        [ids],
      );
      return new Map(rows.map((row: { id: string; routed_at: string }) => [row.id, Number(row.routed_at)]));
    },
    close: async () => {
      await stop(worker.child);
      await stop(api.child);
      await db.query(`DROP SCHEMA ${schema} CASCADE`);
      await db.end();
    },
  };
}

/** An account with one iPhone, and its send token. */
async function sender(url: string): Promise<string> {
  const account = await post(`${url}/v1/accounts`, ADMIN, {});
  await post(`${url}/v1/devices`, account.key as string, {
    name: 'iPhone',
    platform: 'ios',
    push_token: randomBytes(32).toString('hex'),
  });
  return (await post(`${url}/v1/tokens`, account.key as string, {})).token as string;
}

interface Figures {
  p50: number;
  p99: number;
  max: number;
  routed: number;
  slot: number;
  push: number;
  /** The three slowest sends: which of the run (from 0), and their parts in ms. */
  slowest: { send: number; routed: number; slot: number; push: number }[];
}

/** One POST on a kept-alive connection of `agent`: its status and body, read whole. */
function postJson(agent: http.Agent, url: string, token: string, json: unknown) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end(JSON.stringify(json));
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

/**
 * `rate` sends a second for SECONDS, each started on its own schedule whatever the others are
 * doing (an open loop: a slow response does not slow the sends behind it), then every push awaited.
 */
async function run(setup: Setup, rate: number): Promise<Figures> {
  const token = await sender(setup.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const count = Math.max(20, Math.round(rate * SECONDS));
  const accepted = new Map<string, number>();
  const sendIndex = new Map<string, number>();
  const started = performance.now() + 50;
  const origin = Date.now() - performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const { status, body } = await postJson(agent, `${setup.url}/v1/notifications`, token, {
        message: `m${i}`,
      });
      if (status !== 202) throw new Error(`send: ${status} ${body}`);
      const { id } = JSON.parse(body) as { id: string };
      accepted.set(id, origin + performance.now());
      sendIndex.set(id, i);
    }),
  );
  const deadline = Date.now() + 30_000;
  while ([...accepted.keys()].some((id) => !pushed.has(id))) {
    if (Date.now() > deadline) throw new Error('pushes still missing after 30 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  agent.destroy();
  const routedAt = await setup.routedAt([...accepted.keys()]);
  const total: number[] = [];
  const parts = { routed: [] as number[], slot: [] as number[], push: [] as number[] };
  const order = [...accepted.keys()];
  for (const [id, at] of accepted) {
    const push = pushed.get(id) as { received: number; responded: number };
    const routed = routedAt.get(id) ?? Number.NaN;
    total.push(push.responded - at);
    parts.routed.push(Math.max(0, routed - at));
    parts.slot.push(push.received - Math.max(routed, at));
    parts.push.push(push.responded - push.received);
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const all = sorted(total);
  return {
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    max: all[all.length - 1] as number,
    routed: percentile(sorted(parts.routed), 50),
    slot: percentile(sorted(parts.slot), 50),
    push: percentile(sorted(parts.push), 50),
    slowest: total
      .map((ms, i) => ({ ms, i }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3)
      .map(({ i }) => ({
        send: sendIndex.get(order[i] as string) as number,
        routed: parts.routed[i] as number,
        slot: parts.slot[i] as number,
        push: parts.push[i] as number,
      })),
  };
}

const show = (f: Figures) =>
  `p50 ${f.p50.toFixed(0)} ms, p99 ${f.p99.toFixed(0)} ms, max ${f.max.toFixed(0)} ms ` +
  `(medians: routed ${f.routed.toFixed(0)}, push slot ${f.slot.toFixed(0)}, push ${f.push.toFixed(0)}); ` +
  `slowest: ${f.slowest
    .map(
      (s) => `#${s.send} routed ${s.routed.toFixed(0)} slot ${s.slot.toFixed(0)} push ${s.push.toFixed(0)}`,
    )
    .join(', ')}`;

const SETUPS = {
  'SQLite, one process': sqliteSetup,
  'PostgreSQL, API and worker apart, LISTEN/NOTIFY': () => postgresSetup('notify'),
  'PostgreSQL, API and worker apart, polling': () => postgresSetup('poll'),
} as const;
type SetupName = keyof typeof SETUPS;
const p99s = new Map<string, number[]>();

try {
  for (let round = 1; round <= ROUNDS; round++) {
    const names = Object.keys(SETUPS) as SetupName[];
    // Each round in another order, so that no setup always gets the machine's better moments.
    const order = names.map((_, i) => names[(i + round) % names.length] as SetupName);
    for (const name of order) {
      const setup = await SETUPS[name]();
      try {
        for (const rate of RATES) {
          const figures = await run(setup, rate);
          console.log(`round ${round}: ${name}, ${rate}/s: ${show(figures)}`);
          const at = `${name}@${rate}`;
          p99s.set(at, [...(p99s.get(at) ?? []), figures.p99]);
        }
      } finally {
        await setup.close();
      }
    }
  }
  const over = (name: SetupName, rate: number) =>
    (p99s.get(`${name}@${rate}`) ?? []).map((p) => p - ROUND_TRIP_MS);
  const sqlite = median(over('SQLite, one process', 200));
  const notify = median(over('PostgreSQL, API and worker apart, LISTEN/NOTIFY', 200));
  const polling = median(over('PostgreSQL, API and worker apart, polling', 200));
  console.log(
    `goals at 200/s, p99 beyond the ${ROUND_TRIP_MS} ms round trip: SQLite ${sqlite.toFixed(0)} ms ` +
      `(goal ${GOAL_SQLITE_MS}: ${sqlite <= GOAL_SQLITE_MS ? 'met' : 'missed'}), PostgreSQL ${notify.toFixed(0)} ms ` +
      `(goal ${GOAL_POSTGRES_MS}: ${notify <= GOAL_POSTGRES_MS ? 'met' : 'missed'}), polling ${polling.toFixed(0)} ms`,
  );
  const ours = over('PostgreSQL, API and worker apart, LISTEN/NOTIFY', 200);
  const theirs = over('PostgreSQL, API and worker apart, polling', 200);
  const ratio = printRatios('p99 beyond the round trip, LISTEN/NOTIFY / polling', ours, theirs);
  console.log(
    JSON.stringify({
      bench: 'latency',
      value: Math.round(median(p99s.get('PostgreSQL, API and worker apart, LISTEN/NOTIFY@200') ?? [])),
      unit: 'ms p99, 202 to the push response, PostgreSQL apart, 200/s',
      baseline: Math.round(median(p99s.get('PostgreSQL, API and worker apart, polling@200') ?? [])),
      ratio,
      sqlite_p99_ms: Math.round(median(p99s.get('SQLite, one process@200') ?? [])),
      round_trip_ms: ROUND_TRIP_MS,
      goals: { sqlite_ms: GOAL_SQLITE_MS, postgres_ms: GOAL_POSTGRES_MS },
      met: sqlite <= GOAL_SQLITE_MS && notify <= GOAL_POSTGRES_MS,
    }),
  );
} finally {
  await sim.close();
  await rm(work, { recursive: true, force: true });
}
