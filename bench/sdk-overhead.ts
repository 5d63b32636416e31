// Per-send cost of `client.send` (validation, serialisation, retry loop, response checks) against ky
// alone called the same way, and against a raw `fetch` of the same request to the same local
// server, in rounds of one run whose order turns.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Foxbell } from '@foxbell/sdk';
import ky from 'ky';
import { alternatingRounds, printRatios, printResult } from './support/rounds.js';
import { median } from './support/stats.js';

const ROUNDS = 15;
const SENDS_PER_ROUND = 1_000;
const token = `fox_send_${'a'.repeat(32)}`;
const body = JSON.stringify({ id: 'ntf_bench', status: 'accepted', request_id: 'req_bench' });

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(202, {
      'content-type': 'application/json',
      'x-request-id': 'req_bench',
      'x-ratelimit-limit': '10000',
      'x-ratelimit-remaining': '9999',
      'x-ratelimit-reset': '1798761600',
    });
    response.end(body);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const fields = {
  message: 'Build #812 passed on main',
  title: 'CI',
  scene: 'rocket',
  scene_params: { color: 'green' },
};
const client = new Foxbell({ token, baseUrl });

/** The request the SDK sends for `fields`, as a raw fetch would send it. */
function sendInit(): RequestInit & { method: 'POST'; body: string } {
  return {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify(fields),
  };
}

async function raw(): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/notifications`, sendInit());
  JSON.parse(await response.text());
}

// ky alone, configured and called as the SDK calls it (ky builds the request, a fetch of ours
// sends it with the body's bytes): shows how much of the overhead is ky's own per-request work.
const kyClient = ky.create({ prefix: baseUrl, retry: 0, throwHttpErrors: false, timeout: false });
async function kyOnly(): Promise<void> {
  const { body, ...init } = sendInit();
  const response = await kyClient('v1/notifications', {
    ...init,
    fetch: (built) =>
      fetch((built as Request).url, {
        method: (built as Request).method,
        headers: (built as Request).headers,
        body,
      }),
  });
  JSON.parse(await response.text());
}

async function sdk(): Promise<void> {
  await client.send(fields);
}

async function round(send: () => Promise<void>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < SENDS_PER_ROUND; i++) await send();
  return ((performance.now() - start) * 1000) / SENDS_PER_ROUND;
}

const rounds = await alternatingRounds(
  ROUNDS,
  { 'client.send': () => round(sdk), 'ky alone': () => round(kyOnly), 'raw fetch': () => round(raw) },
  (us) => `${us.toFixed(0)} µs`,
);
server.close();

const sdkTimes = rounds['client.send'];
const kyTimes = rounds['ky alone'];
const rawTimes = rounds['raw fetch'];
console.log(
  `client.send: ${median(sdkTimes).toFixed(0)} µs per send (median of ${ROUNDS} rounds of ${SENDS_PER_ROUND})`,
);
console.log(
  `ky alone:    ${median(kyTimes).toFixed(0)} µs per send, called as the SDK calls it (goal: the SDK under 1.15 times this)`,
);
console.log(`raw fetch:   ${median(rawTimes).toFixed(0)} µs per send`);
printRatios('client.send over a raw fetch', sdkTimes, rawTimes);
printRatios('ky alone over a raw fetch', kyTimes, rawTimes);
// The ratio to keep is ours alone: the SDK against ky called the same way.
printResult('sdk-overhead', 'µs per send', sdkTimes, kyTimes);
