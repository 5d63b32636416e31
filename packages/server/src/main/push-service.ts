import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { type ApnsConfig, DEFAULT_WEB_PUSH_SUBJECT, type ServerConfig } from '../config/server-settings.js';
import { ApnsClient } from '../delivery/apns/client.js';
import { newProviderKeyPem } from '../delivery/apns/provider-token.js';
import { ApnsTransport } from '../delivery/apns/transport.js';
import type { Transport } from '../delivery/transport.js';
import { TransportByDevice } from '../delivery/transports.js';
import { WebPushTransport } from '../delivery/web-push/transport.js';
import type { Clock } from '../kernel/clock.js';
import { VapidKeySource } from '../kernel/vapid.js';
import { buildSimulatorControl } from '../simulator/control.js';
import { ApnsSimulator } from '../simulator/simulator.js';
import type { Store } from '../store/store.js';

/** The push side of a process: the transports, and the APNs simulator when it runs inside. */
export interface PushService {
  /** APNs or Web Push, by each destination's device. */
  transport: Transport;
  simulator: ApnsSimulator | undefined;
  /** The simulator's control API address, when it runs inside. */
  controlUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * Opens what `config` names: APNs (or its simulator) and Web Push, each device's pushes through
 * the one it registered with.
 */
export async function openPushService(
  config: ServerConfig,
  store: Store,
  clock: Clock,
): Promise<PushService> {
  const apns = await openApns(config.apns, clock);
  const vapid = new VapidKeySource(store);
  const webPush = new WebPushTransport({
    keys: () => vapid.keys(),
    subject: config.webPush.subject ?? DEFAULT_WEB_PUSH_SUBJECT,
    hosts: config.webPush.hosts,
    clock,
  });
  const transport = new TransportByDevice({ apns: apns.transport, webPush });
  return {
    ...apns,
    transport,
    close: async () => {
      await webPush.close();
      await apns.close();
    },
  };
}

/**
 * APNs as `config` names it. With `sim`, the simulator starts inside the process with a key made
 * for this run, and the real HTTP/2 client talks to it over TLS like it would to Apple.
 */
async function openApns(config: ApnsConfig, clock: Clock): Promise<PushService> {
  if (config.kind === 'remote') {
    const client = new ApnsClient({
      url: config.url,
      ca: config.caFile === undefined ? undefined : await readFile(config.caFile, 'utf8'),
      key: {
        privateKeyPem: await readFile(config.keyFile, 'utf8'),
        keyId: config.keyId,
        teamId: config.teamId,
      },
      clock,
    });
    const transport = new ApnsTransport(client, config.topics);
    return { transport, simulator: undefined, controlUrl: undefined, close: () => transport.close() };
  }
  const key = {
    privateKeyPem: newProviderKeyPem(),
    keyId: 'SIMKEY0001',
    teamId: 'SIMTEAM001',
  };
  // On loopback whatever --host says: the control API reads every account's pushes and scripts
  // answers, and the simulator is for this process only.
  const simulator = await ApnsSimulator.start({
    host: '127.0.0.1',
    clock,
    keys: [{ keyId: key.keyId, teamId: key.teamId, keyPem: key.privateKeyPem }],
  });
  let control: FastifyInstance | undefined;
  let controlUrl: string | undefined;
  if (config.control) {
    control = buildSimulatorControl(simulator);
    controlUrl = await control.listen({ port: config.control.port, host: '127.0.0.1' });
  }
  const transport = new ApnsTransport(
    new ApnsClient({ url: simulator.url, ca: simulator.ca, key, clock }),
    config.topics,
  );
  return {
    transport,
    simulator,
    controlUrl,
    close: async () => {
      await transport.close();
      await control?.close();
      await simulator.close();
    },
  };
}
