import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from '../config/server-settings.js';
import type { ApnsEndpoint } from '../delivery/apns/provider.js';
import { newProviderKeyPem } from '../delivery/apns/provider-token.js';
import type { ApnsConfig } from '../delivery/apns/settings.js';
import type { PushProvider } from '../delivery/provider.js';
import { pushProviders } from '../delivery/providers.js';
import type { PushTransport } from '../delivery/transport.js';
import type { Clock } from '../kernel/clock.js';
import { buildSimulatorControl } from '../simulator/control.js';
import { ApnsSimulator } from '../simulator/simulator.js';
import type { Store } from '../store/store.js';

/**
 * The push side of a process: the providers `config` names, and, once delivery opens their
 * transports, the APNs simulator when it runs inside. An API-only process uses the providers for
 * registrations and never opens a transport (nor starts a simulator).
 */
export interface PushService {
  readonly providers: readonly PushProvider[];
  /**
   * Opens every provider's transport, by provider id. What the process should say of them goes to
   * `warn` (outside dev mode): at once, or for a stand-in, when the first push reaches it.
   */
  openTransports(warn: (warning: string) => void): Promise<{
    transports: Record<string, PushTransport>;
    standIns: string[];
  }>;
  /** The simulator inside the process, once a transport started it. */
  readonly simulator: ApnsSimulator | undefined;
  /** Its control API's address, when it serves one. */
  readonly controlUrl: string | undefined;
  /** Closes the transports opened and the simulator. */
  close(): Promise<void>;
}

export function pushService(config: ServerConfig, store: Store, clock: Clock): PushService {
  const simulated = simulatedApns(config.apns, clock);
  const providers = pushProviders({
    clock,
    keeper: store,
    apns: {
      endpoint: simulated ? simulated.open : async () => remoteEndpoint(config.apns),
      topics: config.apns.topics,
      standIn: simulated !== undefined,
      warning:
        simulated && !config.dev
          ? 'delivering APNs devices to the built-in simulator: no app of theirs gets a notification. ' +
            'Give --apns production (or sandbox) with --apns-key-file, --apns-key-id and --apns-team-id; --dev for a trial'
          : undefined,
    },
    webPush: { subject: config.webPush.subject, hosts: config.webPush.hosts, ca: config.webPush.ca },
  });
  const opened: PushTransport[] = [];
  return {
    providers,
    async openTransports(warn) {
      const transports: Record<string, PushTransport> = {};
      const standIns: string[] = [];
      for (const provider of providers) {
        const { transport, warning, standIn } = await provider.openTransport();
        opened.push(transport);
        const said = warning === undefined || config.dev ? undefined : () => warn(warning);
        // A stand-in is warned of when the first push reaches it: one no push reaches (no APNs
        // device anywhere, as with the web app alone) changes nothing and is worth no word.
        transports[provider.id] = standIn && said ? sayingAtFirstPush(transport, said) : transport;
        if (standIn) standIns.push(provider.id);
        else said?.();
      }
      return { transports, standIns };
    },
    get simulator() {
      return simulated?.running?.simulator;
    },
    get controlUrl() {
      return simulated?.running?.controlUrl;
    },
    async close() {
      await Promise.all(opened.map((transport) => transport.close()));
      await simulated?.close();
    },
  };
}

/** `transport`, calling `say` once, as the first push goes through it. */
function sayingAtFirstPush(transport: PushTransport, say: () => void): PushTransport {
  let said = false;
  return {
    push(destination) {
      if (!said) {
        said = true;
        say();
      }
      return transport.push(destination);
    },
    close: () => transport.close(),
  };
}

function remoteEndpoint(config: ApnsConfig): ApnsEndpoint {
  if (config.kind !== 'remote') throw new Error('not a remote APNs endpoint');
  return {
    kind: 'files',
    url: config.url,
    ca: config.ca,
    keyFile: config.keyFile,
    keyId: config.keyId,
    teamId: config.teamId,
  };
}

/**
 * With `--apns sim`, the simulator starts inside the process (when delivery opens APNs) with a
 * key made for this run, and the real HTTP/2 client talks to it over TLS as it would to Apple.
 */
function simulatedApns(config: ApnsConfig, clock: Clock) {
  if (config.kind !== 'sim') return undefined;
  const state: {
    running:
      | { simulator: ApnsSimulator; control: FastifyInstance | undefined; controlUrl: string | undefined }
      | undefined;
    open(): Promise<ApnsEndpoint>;
    close(): Promise<void>;
  } = {
    running: undefined,
    async open() {
      const key = { privateKeyPem: newProviderKeyPem(), keyId: 'SIMKEY0001', teamId: 'SIMTEAM001' };
      // On loopback whatever --host says: the control API reads every account's pushes and
      // scripts answers, and the simulator is for this process only.
      const simulator = await ApnsSimulator.start({
        host: '127.0.0.1',
        clock,
        keys: [{ keyId: key.keyId, teamId: key.teamId, keyPem: key.privateKeyPem }],
      });
      const control = config.control ? buildSimulatorControl(simulator) : undefined;
      const controlUrl = config.control
        ? await control?.listen({ port: config.control.port, host: '127.0.0.1' })
        : undefined;
      state.running = { simulator, control, controlUrl };
      return { kind: 'given', url: simulator.url, ca: simulator.ca, key };
    },
    async close() {
      await state.running?.control?.close();
      await state.running?.simulator.close();
    },
  };
  return state;
}
