import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApnsClient } from '../../../src/delivery/apns/client.js';
import { ApnsTransport } from '../../../src/delivery/apns/transport.js';
import type { DeliveryLog } from '../../../src/delivery/worker.js';
import { warmTransports } from '../../../src/main/start-delivery.js';
import { ManualClock } from '../../helpers.js';
import { PROVIDER_KEY, startSimulator } from '../../simulated-apns.js';

const TOPICS = { ios: 'app.foxbell.test', watchos: 'app.foxbell.test', visionos: 'app.foxbell.test' };
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A TCP server on `host` that runs `onSocket` for each connection, and counts them. */
async function tcpServer(host: string, onSocket: (socket: net.Socket) => void) {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closing.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as net.AddressInfo).port, accepted: () => accepted };
}

/** What a start logged: its warnings, as the operator reads them. */
function recordingLog() {
  const warnings: { message: string; details: Record<string, unknown> | undefined }[] = [];
  const log: DeliveryLog = {
    error: () => {},
    warn: (message, details) => warnings.push({ message, details }),
  };
  return { log, warnings };
}

function client(url: string, clock = new ManualClock()) {
  const made = new ApnsClient({ url, key: PROVIDER_KEY, clock });
  closing.push(() => made.close());
  return made;
}

describe("warming delivery's push connections at start", () => {
  it('opens the APNs connection before the first push, which then goes over it: no new connection', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    const target = new URL(sim.url);
    // Every connection to the simulator goes through this relay, which counts them.
    const relay = await tcpServer(target.hostname, (socket) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      upstream.on('error', () => socket.destroy());
      socket.pipe(upstream).pipe(socket);
      socket.on('close', () => upstream.destroy());
    });
    const apns = new ApnsClient({
      url: `https://${target.host.replace(target.port, String(relay.port))}`,
      ca: sim.ca,
      key: PROVIDER_KEY,
      clock,
    });
    closing.push(() => apns.close());
    const { log, warnings } = recordingLog();

    await warmTransports({ apns: new ApnsTransport(apns, TOPICS) }, log);
    expect(relay.accepted()).toBe(1);
    expect(sim.received()).toHaveLength(0);

    const result = await apns.push({
      pushToken: 'ab'.repeat(32),
      headers: { 'apns-topic': TOPICS.ios, 'apns-push-type': 'alert', 'apns-id': randomUUID() },
      payload: '{"aps":{"alert":"hi"}}',
    });
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(relay.accepted()).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('goes on without a push service that accepts the connection but never responds, once its time is up, and says so', async () => {
    const silent = await tcpServer('127.0.0.1', () => {});
    const { log, warnings } = recordingLog();
    const began = performance.now();
    await warmTransports(
      { apns: new ApnsTransport(client(`https://127.0.0.1:${silent.port}`), TOPICS) },
      log,
      300,
    );
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(silent.accepted()).toBe(1);
    expect(warnings).toEqual([
      {
        message: 'could not connect to the push service at start; its first push will try again',
        details: { provider: 'apns', error: 'no connection after 300 ms' },
      },
    ]);
  });

  it('goes on at once when the push service refuses the connection, and says why', async () => {
    const closed = await tcpServer('127.0.0.1', () => {});
    const port = closed.port;
    await closing.pop()?.();
    const { log, warnings } = recordingLog();
    await warmTransports(
      { apns: new ApnsTransport(client(`https://127.0.0.1:${port}`), TOPICS) },
      log,
      60_000,
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.details).toEqual({
      provider: 'apns',
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });
});
