import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config/server-settings.js';
import { APNS } from '../delivery/apns/entry.js';
import type { ApnsEndpoint } from '../delivery/apns/provider.js';
import { newProviderKeyPem } from '../delivery/apns/provider-token.js';
import type { StandIn } from '../delivery/provider.js';
import type { Clock } from '../kernel/clock.js';
import { buildSimulatorControl } from './control.js';
import { ApnsSimulator } from './simulator.js';

/**
 * The simulator inside a `foxbell-server` process: APNs's stand-in, started when delivery opens
 * APNs, with its control API when that is on.
 */
export interface BuiltInSimulator extends StandIn<ApnsEndpoint> {
  /** The simulator, once started: what the device page shows. */
  readonly running: ApnsSimulator | undefined;
  /** What the process says at start, once the simulator runs: where its control API is. */
  readonly announcement: string | undefined;
  close(): Promise<void>;
}

/**
 * With `--apns sim`, the simulator starts inside the process (when delivery opens APNs) with a
 * key made for this run, and the real HTTP/2 client talks to it over TLS as it would to Apple.
 * Undefined when APNs goes to a real endpoint.
 */
export function builtInSimulator(config: ServerConfig, clock: Clock): BuiltInSimulator | undefined {
  const { apns } = config;
  if (apns.kind !== 'sim') return undefined;
  let running:
    | { simulator: ApnsSimulator; control: FastifyInstance | undefined; controlUrl: string | undefined }
    | undefined;
  return {
    provider: APNS,
    get running() {
      return running?.simulator;
    },
    get announcement() {
      return running?.controlUrl && `foxbell-server APNs simulator control API on ${running.controlUrl}\n`;
    },
    async start() {
      const key = { privateKeyPem: newProviderKeyPem(), keyId: 'SIMKEY0001', teamId: 'SIMTEAM001' };
      // On loopback whatever --host says: the control API reads every account's pushes and
      // scripts responses, and the simulator is for this process only.
      const simulator = await ApnsSimulator.start({
        host: '127.0.0.1',
        clock,
        keys: [{ keyId: key.keyId, teamId: key.teamId, keyPem: key.privateKeyPem }],
      });
      const control = apns.control ? buildSimulatorControl(simulator) : undefined;
      const controlUrl = apns.control
        ? await control?.listen({ port: apns.control.port, host: '127.0.0.1' })
        : undefined;
      running = { simulator, control, controlUrl };
      return { kind: 'given', url: simulator.url, ca: simulator.ca, key };
    },
    async close() {
      await running?.control?.close();
      await running?.simulator.close();
    },
  };
}
