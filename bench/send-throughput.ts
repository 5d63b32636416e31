// Accepted durable sends per second of the real server (foxbell-server on SQLite, every 202
// fsync'd), against bare Fastify responding with 202 to the same request, with one load client
// (autocannon) in the same run. Each target runs in its own process; the load comes from this one.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ADMIN, NO_LIMITS, post, ROOT, SERVER_BIN, start, stop } from './support/processes.js';
import { alternatingRounds, printRatios, printResult } from './support/rounds.js';

const ROUNDS = 5;
const SECONDS = 5;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LISTENING = /listening on (http:\/\/\S+)/;

async function load(url: string, token: string, seconds = SECONDS): Promise<number> {
  const result = await autocannon({
    url: `${url}/v1/notifications`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Build #812 passed on main', title: 'CI', scene: 'rocket' }),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${result.non2xx} non-2xx responses and ${result.errors} errors from ${url}`);
  }
  return result.requests.average;
}

const data = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-'));
/** foxbell-server on a data directory of its own, with these settings too; and a token for it. */
async function startFoxbell(name: string, extra: string[] = []) {
  const server = await start(
    [
      SERVER_BIN,
      '--port=0',
      `--data=${path.join(data, name)}`,
      `--admin-key=${ADMIN}`,
      '--log-level=warn',
      // The API alone: delivery has its own bench.
      '--no-workers',
      ...NO_LIMITS,
      ...extra,
    ],
    LISTENING,
  );
  const account = await post(`${server.url}/v1/accounts`, ADMIN, {});
  const { token } = await post(`${server.url}/v1/tokens`, account.key as string, {});
  return { ...server, token: token as string };
}
const foxbell = await startFoxbell('plain');
// The same with metrics on (counted on every send), to show what they cost the send path.
const metered = await startFoxbell('metrics', ['--metrics=127.0.0.1:0']);
const bare = await start([path.join(ROOT, 'bench/support/bare-fastify.mjs')], LISTENING);

// Each round loads the three one after another, in an order that turns each round. The untimed
// round 0, there so that none is measured while V8 still compiles it, takes a second each.
const secondsOf = (round: number) => (round === 0 ? 1 : SECONDS);
const rounds = await alternatingRounds(
  ROUNDS,
  {
    foxbell: (round) => load(foxbell.url, foxbell.token, secondsOf(round)),
    'foxbell --metrics': (round) => load(metered.url, metered.token, secondsOf(round)),
    'bare fastify': (round) => load(bare.url, foxbell.token, secondsOf(round)),
  },
  (rate) => `${rate.toFixed(0)}/s`,
);
await stop(foxbell.child);
await stop(metered.child);
await stop(bare.child);
await rm(data, { recursive: true, force: true });

console.log(
  `${cpus().length} CPUs, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, median of rounds`,
);
// What counting metrics on every send costs, between runs seconds apart.
printRatios('with --metrics over without', rounds['foxbell --metrics'], rounds.foxbell);
printResult('send-throughput', 'accepted durable sends/s', rounds.foxbell, rounds['bare fastify']);
