// Status reads per second of the real server (foxbell-server on SQLite): GET
// /v1/notifications/{id}/status with a send token, for a notification pushed to three devices (an
// iPhone, a Watch and a Vision Pro, through the built-in APNs simulator), so the record carries
// each destination's name, state and push status. Against bare Fastify returning a record of the
// same shape from memory, with one load client (autocannon) in the same run. Each target runs in a
// process of its own; the load comes from this one.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { ADMIN, NO_LIMITS, post, ROOT, SERVER_BIN, start, stop } from './support/processes.js';
import { alternatingRounds, printResult } from './support/rounds.js';

const ROUNDS = 5;
const SECONDS = 5;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LISTENING = /listening on (http:\/\/\S+)/;

async function load(url: string, token: string, seconds: number): Promise<number> {
  const result = await autocannon({
    url,
    method: 'GET',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${result.non2xx} non-2xx responses and ${result.errors} errors from ${url}`);
  }
  return result.requests.average;
}

const data = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-status-'));
const foxbell = await start(
  [SERVER_BIN, '--port=0', `--data=${data}`, `--admin-key=${ADMIN}`, '--log-level=warn', ...NO_LIMITS],
  LISTENING,
);
const account = await post(`${foxbell.url}/v1/accounts`, ADMIN, {});
for (const [name, platform] of [
  ['iPhone', 'ios'],
  ['Apple Watch', 'watchos'],
  ['Vision Pro', 'visionos'],
]) {
  await post(`${foxbell.url}/v1/devices`, account.key as string, {
    name,
    platform,
    push_token: randomBytes(32).toString('hex'),
  });
}
const { token } = await post(`${foxbell.url}/v1/tokens`, account.key as string, {});
const sent = await post(`${foxbell.url}/v1/notifications`, token as string, {
  message: 'Build #812 passed on main',
  title: 'CI',
  scene: 'rocket',
});
const statusUrl = `${foxbell.url}/v1/notifications/${sent.id}/status`;
// Read once every destination has its push service's response.
let record: { status?: string; destinations?: { push_status?: number }[] } = {};
for (let tries = 0; tries < 100; tries++) {
  const response = await fetch(statusUrl, { headers: { authorization: `Bearer ${token}` } });
  record = await response.json();
  if (record.destinations?.length === 3 && record.destinations.every((one) => one.push_status === 200)) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
if (record.status !== 'sent_to_push') throw new Error(`not pushed: ${JSON.stringify(record)}`);

const bare = await start([path.join(ROOT, 'bench/support/bare-fastify.mjs')], LISTENING);
const bareUrl = `${bare.url}/v1/notifications/${sent.id}/status`;

const secondsOf = (round: number) => (round === 0 ? 1 : SECONDS);
const rounds = await alternatingRounds(
  ROUNDS,
  {
    foxbell: (round) => load(statusUrl, token as string, secondsOf(round)),
    'bare fastify': (round) => load(bareUrl, token as string, secondsOf(round)),
  },
  (rate) => `${rate.toFixed(0)}/s`,
);
await stop(foxbell.child);
await stop(bare.child);
await rm(data, { recursive: true, force: true });

console.log(
  `${cpus().length} CPUs, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, median of rounds`,
);
printResult('status-read', 'status reads/s', rounds.foxbell, rounds['bare fastify']);
