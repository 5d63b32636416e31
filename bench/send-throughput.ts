// Accepted durable sends per second of the real server (foxbell-server on SQLite, every 202
// fsync'd), against bare Fastify answering 202 to the same request, with one load client
// (autocannon) in the same run. Each target runs in its own process; the load comes from this one.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ADMIN, NO_LIMITS, post, ROOT, SERVER_BIN, start, stop } from './support/processes.js';

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
    throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors from ${url}`);
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

// One untimed second for each, so that none is measured while V8 is still compiling it.
await load(bare.url, foxbell.token, 1);
await load(foxbell.url, foxbell.token, 1);
await load(metered.url, metered.token, 1);

const ours: number[] = [];
const withMetrics: number[] = [];
const baseline: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  baseline.push(await load(bare.url, foxbell.token));
  // Alternately first, so that neither has the machine's better moments.
  if (round % 2 === 0) {
    ours.push(await load(foxbell.url, foxbell.token));
    withMetrics.push(await load(metered.url, metered.token));
  } else {
    withMetrics.push(await load(metered.url, metered.token));
    ours.push(await load(foxbell.url, foxbell.token));
  }
  console.log(
    `round ${round + 1}: foxbell ${ours.at(-1)?.toFixed(0)}/s, with --metrics ${withMetrics.at(-1)?.toFixed(0)}/s, ` +
      `bare fastify ${baseline.at(-1)?.toFixed(0)}/s`,
  );
}
await stop(foxbell.child);
await stop(metered.child);
await stop(bare.child);
await rm(data, { recursive: true, force: true });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const value = Math.round(median(ours));
const base = Math.round(median(baseline));
console.log(
  `${cpus().length} CPUs, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, median of rounds`,
);
const metricsOn = Math.round(median(withMetrics));
// Each round's two runs are seconds apart: their ratio cancels most of this machine's drift.
const paired = median(withMetrics.map((on, round) => on / (ours[round] as number)));
console.log(
  JSON.stringify({
    metrics_on: metricsOn,
    metrics_off: value,
    ratio: Math.round((metricsOn / value) * 1000) / 1000,
    paired_ratio: Math.round(paired * 1000) / 1000,
  }),
);
console.log(
  JSON.stringify({
    bench: 'send-throughput',
    value,
    unit: 'accepted durable sends/s',
    baseline: base,
    ratio: Math.round((value / base) * 1000) / 1000,
  }),
);
