// Accepted durable sends per second of the real server (foxbell-server on SQLite, every 202
// fsync'd), against bare Fastify answering 202 to the same request, with one load client
// (autocannon) in the same run. Each target runs in its own process; the load comes from this one.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROUNDS = 5;
const SECONDS = 5;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ADMIN = 'bench-admin-key-0123456789';
const root = fileURLToPath(new URL('..', import.meta.url));

async function start(script: string, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

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
const foxbell = await start(path.join(root, 'packages/server/bin/foxbell-server.js'), [
  '--port=0',
  `--data=${data}`,
  `--admin-key=${ADMIN}`,
  '--log-level=warn',
  // The API alone: delivery has its own bench.
  '--no-workers',
  // The bench measures the server, not the spec's per-minute limits.
  '--rate-per-token=1000000000',
  '--rate-per-account=1000000000',
  '--monthly-quota=1000000000000',
]);
const bare = await start(path.join(root, 'bench/support/bare-fastify.mjs'), []);

const post = async (url: string, token: string, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, string>;
};
const account = await post(`${foxbell.url}/v1/accounts`, ADMIN, {});
const { token } = await post(`${foxbell.url}/v1/tokens`, account.key as string, {});

// One untimed second for each, so that neither is measured while V8 is still compiling it.
await load(bare.url, token as string, 1);
await load(foxbell.url, token as string, 1);

const ours: number[] = [];
const baseline: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  baseline.push(await load(bare.url, token as string));
  ours.push(await load(foxbell.url, token as string));
  console.log(
    `round ${round + 1}: foxbell ${ours.at(-1)?.toFixed(0)}/s, bare fastify ${baseline.at(-1)?.toFixed(0)}/s`,
  );
}
await stop(foxbell.child);
await stop(bare.child);
await rm(data, { recursive: true, force: true });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const value = Math.round(median(ours));
const base = Math.round(median(baseline));
console.log(
  `${cpus().length} CPUs, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, median of rounds`,
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
