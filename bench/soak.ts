// Soak: foxbell-server (SQLite, its own delivery workers, the built-in APNs simulator) under load
// from this process (autocannon at fixed rates, over 64 accounts):
//   1. capacity: as fast as it responds, then until delivery has caught up: the sends per second it
//      accepts and delivers;
//   2. sustained: 80% of that rate, for the p99 latency; bare Fastify at the same rate is the baseline;
//   3. overload: twice the capacity, where it must shed (429/503 with Retry-After) and respond to all;
//   4. recovery: half the capacity right after, where every send must be accepted again.
// Then every accepted send must be stored and reach a final state: `lost` counts those that did not.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSqliteStore } from '@foxbell/server';
import autocannon from 'autocannon';
import {
  makeAccounts,
  NO_LIMITS,
  ROOT,
  rotatingTokens,
  SERVER_BIN,
  start,
  stop,
} from './support/processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 100;
/** The server's --sends-in-flight: past it, sends are shed. */
const IN_FLIGHT = 200;
const ACCOUNTS = 64;
const BODY = JSON.stringify({ message: 'Build #812 passed on main', title: 'CI', scene: 'rocket' });

interface Phase {
  sent: number;
  accepted: number;
  shed: number;
  /** Responses that were neither: errors, timeouts, anything else. */
  other: number;
  p99: number;
}

function run(
  url: string,
  tokens: string[],
  options: { rate?: number; seconds?: number; connections?: number } = {},
): Promise<Phase> {
  const seconds = options.seconds ?? SECONDS;
  const phase: Phase = { sent: 0, accepted: 0, shed: 0, other: 0, p99: 0 };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}/v1/notifications`,
        method: 'POST',
        connections: options.connections ?? CONNECTIONS,
        duration: seconds,
        timeout: 10,
        ...(options.rate === undefined ? {} : { overallRate: options.rate }),
        headers: { 'content-type': 'application/json' },
        body: BODY,
        requests: rotatingTokens(tokens),
      },
      (error, result) => {
        if (error) return reject(error);
        phase.other += result.errors + result.timeouts;
        phase.sent += result.errors + result.timeouts;
        phase.p99 = result.latency.p99;
        resolve(phase);
      },
    );
    instance.on('response', (_client, statusCode) => {
      phase.sent += 1;
      if (statusCode === 202) phase.accepted += 1;
      else if (statusCode === 429 || statusCode === 503) phase.shed += 1;
      else phase.other += 1;
    });
  });
}

const data = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-soak-'));
const server = await start(
  [
    SERVER_BIN,
    '--port=0',
    `--data=${data}`,
    '--admin-key=bench-admin-key-0123456789-abcdefghij',
    '--log-level=warn',
    ...NO_LIMITS,
    `--sends-in-flight=${IN_FLIGHT}`,
  ],
  /listening on (http:\/\/\S+)/,
);
const bare = await start([path.join(ROOT, 'bench/support/bare-fastify.mjs')], /listening on (http:\/\/\S+)/);
const tokens = await makeAccounts(server.url, ACCOUNTS);
const db = new DatabaseSync(path.join(data, 'foxbell.db'), { readOnly: true });
const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
// A worker's store on the same data (the server holds the API lock), to ask whether delivery has
// anything left to do.
const store = openSqliteStore({ dataDir: data, role: 'worker' });
/** Waits until delivery has caught up, so one phase's backlog does not weigh on the next. */
async function settle(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await store.nextDeliveryAt()) !== undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// What it sustains is what it accepts *and* delivers: the rate over the load and the time
// delivery then takes to catch up.
const began = performance.now();
const capacity = await run(server.url, tokens, { seconds: 5 });
await settle();
const capacityRate = capacity.accepted / ((performance.now() - began) / 1000);
const sustainedRate = Math.floor(capacityRate * 0.8);
const sustained = await run(server.url, tokens, { rate: sustainedRate });
const baseline = await run(bare.url, tokens, { rate: sustainedRate });
await settle();
// Many connections, so more sends arrive at once than the server stores at once.
const overload = await run(server.url, tokens, {
  rate: Math.floor(capacityRate * 2),
  connections: 4 * IN_FLIGHT,
});
const recovery = await run(server.url, tokens, { rate: Math.floor(capacityRate * 0.5), seconds: 3 });
for (const [name, phase] of Object.entries({ capacity, sustained, overload, recovery })) {
  console.log(
    `${name}: sent ${phase.sent}, accepted ${phase.accepted}, shed ${phase.shed}, other ${phase.other}, p99 ${phase.p99} ms`,
  );
}

// Every accepted send is stored and reaches a final state (delivered to the simulator, here).
// The server may have accepted a few more than autocannon saw responded as a phase ended: those count too.
const phases = [capacity, sustained, overload, recovery];
const accepted = phases.reduce((sum, phase) => sum + phase.accepted, 0);
await settle();
const stored = count('SELECT count(*) AS n FROM notifications');
const final = count(`SELECT count(*) AS n FROM notifications WHERE status IN ('sent_to_push', 'dropped')`);
const lost = Math.max(0, accepted - stored) + (stored - final);
db.close();
await store.close();
await stop(server.child);
await stop(bare.child);
await rm(data, { recursive: true, force: true });

console.log(
  `${cpus().length} CPUs, ${CONNECTIONS} connections over ${ACCOUNTS} accounts; capacity ${Math.round(capacityRate)}/s, ` +
    `sustained at ${sustainedRate}/s for ${SECONDS} s, overload at twice the capacity over ${4 * IN_FLIGHT} connections ` +
    `(--sends-in-flight ${IN_FLIGHT})`,
);
console.log(
  JSON.stringify({
    sent: phases.reduce((sum, phase) => sum + phase.sent, 0),
    accepted,
    shed: phases.reduce((sum, phase) => sum + phase.shed, 0),
    unanswered_or_errors: phases.reduce((sum, phase) => sum + phase.other, 0),
    recovery_refused: recovery.sent - recovery.accepted,
    lost,
    sustained_rate: sustainedRate,
    p99_ms: sustained.p99,
  }),
);
console.log(
  JSON.stringify({
    bench: 'soak',
    value: sustained.p99,
    unit: `ms p99 at ${sustainedRate} sends/s (80% of capacity)`,
    baseline: baseline.p99,
    ratio: Math.round((sustained.p99 / Math.max(1, baseline.p99)) * 100) / 100,
  }),
);
if (lost !== 0) process.exitCode = 1;
