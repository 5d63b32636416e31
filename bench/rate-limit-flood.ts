// pnpm bench rate-limit-flood: what a flood of clients costs every response. Each request carries an
// unknown credential from an IPv6 /64 of its own, through a trusted proxy (X-Forwarded-For), so
// each is one more key of the per-address brake on unknown credentials. The figure is the median
// answer once BENCH_FLOOD (250,000) addresses were counted; the baseline is the same median at
// 9,000 (below any bound); the ratio is what the flood costs each response. The server's heap (from
// its metrics) is printed at each step: bounded, it stops growing once the brake holds all it keeps.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ADMIN, SERVER_BIN, start, stop } from './support/processes.js';
import { median } from './support/stats.js';

const FLOOD = Number(process.env.BENCH_FLOOD ?? 250_000);
const STEPS = [9_000, 60_000, 150_000, FLOOD].filter(
  (step, index, all) => step <= FLOOD && all.indexOf(step) === index,
);
/** Responses timed at each step, one at a time, each from a new address. */
const TIMED = 2_000;
/** Requests in flight while the flood fills the brake. */
const CONCURRENCY = 32;

/** A port free now, for the metrics listener. */
const metricsPort = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});
const data = await mkdtemp(path.join(tmpdir(), 'foxbell-bench-flood-'));
const server = await start(
  [
    SERVER_BIN,
    '--port=0',
    `--data=${data}`,
    `--admin-key=${ADMIN}`,
    '--log-level=warn',
    '--no-workers',
    '--trust-proxy=127.0.0.1',
    `--metrics=127.0.0.1:${metricsPort}`,
  ],
  /listening on (http:\/\/\S+)/,
);
const { port } = new URL(server.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

let sent = 0;
/** When each request was sent: the addresses of the last minute are the keys the brake must hold. */
const sentAt: number[] = [];
function lastMinute(): number {
  const since = performance.now() - 60_000;
  let low = 0;
  while (low < sentAt.length && (sentAt[low] as number) < since) low += 1;
  return sentAt.length - low;
}
/** One request with an unknown credential from a /64 no request came from before; its response time. */
function flooding(): Promise<number> {
  const n = sent++;
  const address = `2001:db8:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::1`;
  const began = performance.now();
  sentAt.push(began);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/scenes',
        agent,
        headers: {
          authorization: `Bearer fox_send_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`,
          'x-forwarded-for': address,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode !== 401) reject(new Error(`responded ${response.statusCode}, not 401`));
          else resolve(performance.now() - began);
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

async function fillTo(total: number): Promise<void> {
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < total) await flooding();
    }),
  );
}

/** The server's heap in use, as its metrics say. */
async function heapMb(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1]) / 1024 / 1024;
}

const medians = new Map<number, number>();
try {
  for (const step of STEPS) {
    await fillTo(step - TIMED);
    const times: number[] = [];
    for (let i = 0; i < TIMED; i += 1) times.push(await flooding());
    const sorted = [...times].sort((a, b) => a - b);
    medians.set(step, median(times));
    console.log(
      `${step.toLocaleString('en')} addresses (${lastMinute().toLocaleString('en')} in the last minute): median ${median(times).toFixed(2)} ms, p99 ${sorted[Math.floor(TIMED * 0.99)]?.toFixed(2)} ms, heap ${(await heapMb()).toFixed(0)} MB`,
    );
  }
} finally {
  agent.destroy();
  await stop(server.child);
  await rm(data, { recursive: true, force: true });
}
const value = medians.get(FLOOD) as number;
const baseline = medians.get(STEPS[0] as number) as number;
console.log(
  JSON.stringify({
    bench: 'rate-limit-flood',
    value: Number(value.toFixed(2)),
    unit: 'ms',
    baseline: Number(baseline.toFixed(2)),
    ratio: Number((value / baseline).toFixed(2)),
  }),
);
