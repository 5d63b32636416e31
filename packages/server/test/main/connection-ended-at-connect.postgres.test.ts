import { createConnection, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expectError, send } from '../helpers.js';
import { ADMIN, startOutsideSimulator, startProcess, tempDir } from '../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../test-database.js';
import { expectStillRunning } from './deployment.js';

/**
 * PostgreSQL's `FATAL 57P01` (terminating connection due to administrator command), as a backend
 * sends it when the database stops while the connection is being made.
 */
function fatal57P01(): Buffer {
  const fields = Buffer.from(
    'SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0',
    'latin1',
  );
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

/**
 * A TCP proxy in front of the test's PostgreSQL. While `ending` is set, each new connection is
 * ended the way a stopping database ends a connection it has only just accepted: the backend's
 * first ReadyForQuery and its FATAL 57P01 come in one read, so node-postgres meets the error before
 * the pool has handed the connection to whoever asked for it.
 */
async function postgresProxy() {
  const target = new URL(TEST_DATABASE_URL);
  const sockets = new Set<Socket>();
  let ending = false;
  let ended = 0;
  const server = createServer((client) => {
    const endThis = ending;
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream);
    if (!endThis) {
      upstream.pipe(client);
      return;
    }
    // The backend's messages, whole, up to and with its first ReadyForQuery ('Z').
    let held = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      held = Buffer.concat([held, chunk]);
      for (let at = 0; at + 5 <= held.length; at += 1 + held.readInt32BE(at + 1)) {
        if (held[at] === 0x5a && at + 6 <= held.length) {
          ended += 1;
          client.end(Buffer.concat([held.subarray(0, at + 6), fatal57P01()]));
          upstream.destroy();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(TEST_DATABASE_URL);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: url.href,
    /** From now on, each new connection is ended at once; the open ones are cut. */
    endNewConnections() {
      ending = true;
      for (const socket of sockets) socket.destroy();
    },
    /** New connections work again. */
    heal() {
      ending = false;
    },
    get ended() {
      return ended;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

describe('a connection PostgreSQL ends as it is made', () => {
  it('responds with 503 while every new connection is ended, keeps the API and a worker running, and recovers', async () => {
    const proxy = await postgresProxy();
    closing.push(proxy.close);
    const database = ['--database', proxy.url, '--database-schema', newTestSchema(), '--log-level', 'warn'];
    const api = await startProcess([...database], { FOXBELL_ADMIN_KEY: ADMIN });
    const { sim, apnsArgs } = await startOutsideSimulator(await tempDir());
    closing.push(() => sim.close());
    const worker = await startProcess(
      ['worker', ...database, ...apnsArgs, '--lease-seconds', '2'],
      {},
      /worker (wrk_\w+) delivering/,
    );

    proxy.endNewConnections();
    // Several at once, so that the pool makes several connections, each ended as it is made.
    for (let round = 0; round < 5; round += 1) {
      const calls = await Promise.all(
        Array.from({ length: 4 }, () => send(api.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} })),
      );
      for (const call of calls) {
        expectError(call, 503, 'service_unavailable');
        expect(call.headers.get('retry-after')).toBe('5');
      }
    }
    // The worker's poll and its listening connection were ended too, over at least a second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(proxy.ended).toBeGreaterThan(5);

    proxy.heal();
    await expect
      .poll(async () => (await send(api.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} })).status, {
        timeout: 15_000,
      })
      .toBe(201);
    expectStillRunning([api, worker]);
  }, 60_000);
});
