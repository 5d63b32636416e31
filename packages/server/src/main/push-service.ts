import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { ApnsConfig } from '../config/server-settings.js';
import { ApnsClient } from '../delivery/apns/client.js';
import { newProviderKeyPem } from '../delivery/apns/provider-token.js';
import type { ApnsTopics } from '../delivery/apns/push-request.js';
import type { Clock } from '../kernel/clock.js';
import { buildSimulatorControl } from '../simulator/control.js';
import { ApnsSimulator } from '../simulator/simulator.js';

/** The push side of a process: the client, the topics, and the simulator when it runs inside. */
export interface PushService {
  client: ApnsClient;
  topics: ApnsTopics;
  simulator: ApnsSimulator | undefined;
  /** The simulator's control API address, when it runs inside. */
  controlUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * Opens what `config` names. With `sim`, the simulator starts inside the process with a key made
 * for this run, and the real HTTP/2 client talks to it over TLS like it would to Apple.
 */
export async function openPushService(config: ApnsConfig, clock: Clock): Promise<PushService> {
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
    return {
      client,
      topics: config.topics,
      simulator: undefined,
      controlUrl: undefined,
      close: () => client.close(),
    };
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
  const client = new ApnsClient({ url: simulator.url, ca: simulator.ca, key, clock });
  return {
    client,
    topics: config.topics,
    simulator,
    controlUrl,
    close: async () => {
      await client.close();
      await control?.close();
      await simulator.close();
    },
  };
}
