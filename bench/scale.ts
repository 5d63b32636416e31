import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { openPostgresStore, openSqliteStore, type Store } from '@foxbell/server';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  ADMIN,
  makeAccounts,
  NO_LIMITS,
  post,
  rotatingTokens,
  SERVER_BIN,
  start,
  startApnsSimulator,
  stop,
} from './support/processes.js';
import { alternatingRounds, printRatios, printResult } from './support/rounds.js';
import { median } from './support/stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ACCOUNTS = 64;
const DATABASE_URL = process.env.FOXBELL_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const work = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-scale-'));
const sim = await startApnsSimulator(work);
const serverArgs = [
  SERVER_BIN,
  '--port=0',
  `--admin-key=${ADMIN}`,
  '--log-level=warn',
  ...sim.serverArgs,
  ...NO_LIMITS,
];

/**
 * Load on each URL at once, `CONNECTIONS` in all, each request with the next account's token.
 * Returns how many sends were accepted: every response must be a 202.
 */
async function load(urls: string[], tokens: string[]): Promise<number> {
  const requests = rotatingTokens(tokens);
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}/v1/notifications`,
        method: 'POST',
        connections: Math.ceil(CONNECTIONS / urls.length),
        duration: SECONDS,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Build #812 passed on main', title: 'CI', scene: 'rocket' }),
        requests,
      }),
    ),
  );
  for (const result of results) {
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${result.non2xx} non-2xx responses and ${result.errors} errors`);
    }
  }
  return results.reduce((sum, result) => sum + result.requests.total, 0);
}

/**
 * Status records read per second: one send per account, then `CONNECTIONS` connections reading
 * their records (each request the next account's, with its token), spread over `urls`.
 */
async function readStatuses(urls: string[], tokens: string[]): Promise<number> {
  const records = await Promise.all(
    tokens.map(async (token) => {
      const sent = await post(`${urls[0]}/v1/notifications`, token, { message: 'Deploy finished' });
      return { token, path: `/v1/notifications/${sent.id}/status` };
    }),
  );
  let next = 0;
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        connections: Math.ceil(CONNECTIONS / urls.length),
        duration: READ_SECONDS,
        requests: [
          {
            setupRequest: (request) => {
              next = (next + 1) % records.length;
              const record = records[next] as (typeof records)[number];
              return {
                ...request,
                path: record.path,
                headers: { ...request.headers, authorization: `Bearer ${record.token}` },
              };
            },
          },
        ],
      }),
    ),
  );
  for (const result of results) {
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`status reads: ${result.non2xx} non-2xx responses and ${result.errors} errors`);
    }
  }
  return results.reduce((sum, result) => sum + result.requests.total, 0) / READ_SECONDS;
}

/**
 * Runs the load, then waits until the store says delivery has nothing left to do (its own
 * nextDeliveryAt, read through a store of its own on the same data); returns sends/s and
 * pushed/s, then status records read/s. Each account has one iPhone, so every accepted send is one
 * destination.
 */
async function measure(label: string, urls: string[], tokens: string[], store: Store) {
  const started = performance.now();
  const accepted = await load(urls, tokens);
  const sendsPerSecond = accepted / SECONDS;
  while ((await store.nextDeliveryAt()) !== undefined)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const pushedPerSecond = accepted / ((performance.now() - started) / 1000);
  const readsPerSecond = await readStatuses(urls, tokens);
  console.log(
    `${label}: ${sendsPerSecond.toFixed(0)} accepted sends/s, ${pushedPerSecond.toFixed(0)} destinations pushed/s, ` +
      `${readsPerSecond.toFixed(0)} status records read/s`,
  );
  return { sendsPerSecond, pushedPerSecond, readsPerSecond };
}

async function sqliteRun(round: number) {
  const data = path.join(work, `sqlite-${round}`);
  const server = await start([...serverArgs, `--data=${data}`], /listening on (http:\/\/\S+)/);
  const tokens = await makeAccounts(server.url, ACCOUNTS);
  // A worker's store: the API process holds the data directory's API lock.
  const store = openSqliteStore({ dataDir: data, role: 'worker' });
  const result = await measure('SQLite, 1 process', [server.url], tokens, store);
  await store.close();
  await stop(server.child);
  return result;
}

async function postgresRun(processes: number) {
  const schema = `foxbell_bench_${randomBytes(4).toString('hex')}`;
  const args = [...serverArgs, `--database=${DATABASE_URL}`, `--database-schema=${schema}`];
  const servers = await Promise.all(
    Array.from({ length: processes }, () => start(args, /listening on (http:\/\/\S+)/)),
  );
  const tokens = await makeAccounts(servers[0]?.url as string, ACCOUNTS);
  const store = await openPostgresStore({ url: DATABASE_URL, schema, poolSize: 1 });
  const result = await measure(
    `PostgreSQL, ${processes} process${processes > 1 ? 'es' : ''}`,
    servers.map((server) => server.url),
    tokens,
    store,
  );
  for (const server of servers) await stop(server.child);
  await store.close();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(`DROP SCHEMA ${schema} CASCADE`);
  await db.end();
  return result;
}

type Measured = Awaited<ReturnType<typeof measure>>;
const SETUPS = ['SQLite, 1 process', 'PostgreSQL, 1 process', 'PostgreSQL, 2 processes'] as const;
type Setup = (typeof SETUPS)[number];
/** Every run's figures, round 0's first. */
const runs: Record<Setup, Measured[]> = {
  'SQLite, 1 process': [],
  'PostgreSQL, 1 process': [],
  'PostgreSQL, 2 processes': [],
};
const kept = (setup: Setup, measured: Measured) => {
  runs[setup].push(measured);
  return measured.sendsPerSecond;
};
const rounds = await alternatingRounds(
  ROUNDS,
  {
    'SQLite, 1 process': async (round) => kept('SQLite, 1 process', await sqliteRun(round)),
    'PostgreSQL, 1 process': async () => kept('PostgreSQL, 1 process', await postgresRun(1)),
    'PostgreSQL, 2 processes': async () => kept('PostgreSQL, 2 processes', await postgresRun(2)),
  },
  (rate) => `${rate.toFixed(0)} sends/s`,
);
await stop(sim.child);
await rm(work, { recursive: true, force: true });

/** A setup's median of each figure over the timed rounds. */
const medians = (setup: Setup) => {
  const timed = runs[setup].slice(1);
  return {
    sends: Math.round(median(timed.map((run) => run.sendsPerSecond))),
    pushed: Math.round(median(timed.map((run) => run.pushedPerSecond))),
    reads: Math.round(median(timed.map((run) => run.readsPerSecond))),
  };
};
console.log(
  `${cpus().length} CPUs, ${CONNECTIONS} connections over ${ACCOUNTS} accounts, ${SECONDS} s of load per setup, ` +
    `${ROUNDS} rounds, medians; one APNs simulator process; each server process is an API with its own delivery workers`,
);
console.log(
  JSON.stringify({
    sqlite: medians('SQLite, 1 process'),
    postgres_1: medians('PostgreSQL, 1 process'),
    postgres_2: medians('PostgreSQL, 2 processes'),
  }),
);
printRatios(
  'destinations pushed/s, PostgreSQL with 2 processes over SQLite',
  runs['PostgreSQL, 2 processes'].slice(1).map((run) => run.pushedPerSecond),
  runs['SQLite, 1 process'].slice(1).map((run) => run.pushedPerSecond),
);
printRatios(
  'sends/s, PostgreSQL with 1 process over SQLite',
  rounds['PostgreSQL, 1 process'],
  rounds['SQLite, 1 process'],
);
printResult(
  'scale',
  'accepted sends/s, 2 processes on PostgreSQL',
  rounds['PostgreSQL, 2 processes'],
  rounds['SQLite, 1 process'],
);
