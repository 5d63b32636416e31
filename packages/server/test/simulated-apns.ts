import { afterEach, beforeEach } from 'vitest';
import { ApnsClient } from '../src/delivery/apns/client.js';
import { APNS } from '../src/delivery/apns/entry.js';
import { newProviderKeyPem, type ProviderKey } from '../src/delivery/apns/provider-token.js';
import type { ApnsTopics } from '../src/delivery/apns/push-request.js';
import { ApnsTransport } from '../src/delivery/apns/transport.js';
import type { PushTransport } from '../src/delivery/transport.js';
import { DeliveryWorker, type DeliveryWorkerOptions } from '../src/delivery/worker.js';
import type { Clock } from '../src/kernel/clock.js';
import { deliveryLogOf } from '../src/main/start-delivery.js';
import { ApnsSimulator, type ApnsSimulatorOptions } from '../src/simulator/simulator.js';
import { forAll, openServer, type ServerOptions, startServer, type TestServer } from './helpers.js';

export const TOPICS: ApnsTopics = {
  ios: 'app.foxbell.test',
  watchos: 'app.foxbell.test.watchkitapp',
  visionos: 'app.foxbell.test',
};

/** A provider key made once per test file: ES256 keys are cheap, but not free. */
export const PROVIDER_KEY: ProviderKey = {
  privateKeyPem: newProviderKeyPem(),
  keyId: 'KEY0000001',
  teamId: 'TEAM000001',
};

/** The test key as the simulator knows it. */
const SIMULATOR_KEY = {
  keyId: PROVIDER_KEY.keyId,
  teamId: PROVIDER_KEY.teamId,
  keyPem: PROVIDER_KEY.privateKeyPem,
};

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** The simulator over TLS with the test key registered, and a real client that trusts it; closed by `close`. */
async function openSimulator(
  clock: Clock,
  options: ApnsSimulatorOptions = {},
): Promise<{ sim: ApnsSimulator; client: ApnsClient; close(): Promise<void> }> {
  const sim = await ApnsSimulator.start({ clock, keys: [SIMULATOR_KEY], ...options });
  const client = new ApnsClient({ url: sim.url, ca: sim.ca, key: PROVIDER_KEY, clock });
  return {
    sim,
    client,
    async close() {
      await client.close();
      await sim.close();
    },
  };
}

/** The simulator and a client that trusts it (see openSimulator); closed after each test. */
export async function startSimulator(
  clock: Clock,
  options: ApnsSimulatorOptions = {},
): Promise<{ sim: ApnsSimulator; client: ApnsClient }> {
  const { sim, client, close } = await openSimulator(clock, options);
  closing.push(close);
  return { sim, client };
}

export interface DeliveryServer extends TestServer {
  sim: ApnsSimulator;
  client: ApnsClient;
  /** A worker driven by hand: `await worker.tick()` routes, pushes and records once. */
  worker: DeliveryWorker;
  /** Another worker on the same store, with its own transport; the test settles it. */
  addWorker(transport: PushTransport, options?: Partial<DeliveryWorkerOptions>): DeliveryWorker;
  /** APNs through the test's client, the transport of the test's own worker. */
  transport: PushTransport;
}

/** The real app, store, worker, client and simulator, sharing one manual clock; closed after each test. */
export async function startDeliveryServer(options: ServerOptions = {}): Promise<DeliveryServer> {
  const server = await startServer(options);
  const { sim, client } = await startSimulator(server.clock);
  const delivery = withDelivery(server, sim, client);
  closing.push(() => delivery.worker.idle());
  return delivery;
}

/**
 * One delivery server for every test of the `describe` (or file) this is called in, as
 * `serverForAll` makes its server, for tests that leave it as they found it: each makes an account
 * of its own, none moves the clock, stops a worker or reads the log of the whole server. What the
 * simulator received, and its scripts, are forgotten before each test, so that `sim.received()` is
 * the test's own pushes.
 */
export function deliveryServerForAll(options: ServerOptions = {}): () => DeliveryServer {
  const shared = forAll('deliveryServerForAll', async () => {
    const server = await openServer(options);
    const simulator = await openSimulator(server.clock);
    const delivery = withDelivery(server, simulator.sim, simulator.client);
    return {
      value: delivery,
      async close() {
        await delivery.worker.idle();
        await simulator.close();
        await server.close();
      },
    };
  });
  beforeEach(() => shared().sim.reset());
  return shared;
}

/** The server with a worker driven by hand, pushing to `sim` through `client`. */
function withDelivery(server: TestServer, sim: ApnsSimulator, client: ApnsClient): DeliveryServer {
  const addWorker = (transport: PushTransport, options: Partial<DeliveryWorkerOptions> = {}) =>
    new DeliveryWorker({
      store: server.store,
      transports: { [APNS]: transport },
      clock: server.clock,
      concurrency: 16,
      // Into the app's log, as in a foxbell-server process: tests read the warnings there.
      log: deliveryLogOf(server.log),
      ...options,
    });
  const transport = new ApnsTransport(client, TOPICS);
  const worker = addWorker(transport);
  return { ...server, sim, client, worker, addWorker, transport };
}
