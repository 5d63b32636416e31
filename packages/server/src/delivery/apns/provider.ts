import { readFile } from 'node:fs/promises';
import type { Clock } from '../../kernel/clock.js';
import type { ProviderMaker, PushProvider } from '../provider.js';
import { ApnsClient } from './client.js';
import { apns } from './entry.js';
import type { ProviderKey } from './provider-token.js';
import type { ApnsTopics } from './push-request.js';
import { apnsRegistration } from './registration.js';
import type { ApnsConfig } from './settings.js';
import { ApnsTransport } from './transport.js';

/**
 * Where APNs pushes go, and with what credential: Apple's endpoint (or a standalone simulator's)
 * with the `.p8` key's file, or an endpoint and key the process already holds (the simulator it
 * runs inside).
 */
export type ApnsEndpoint =
  | { kind: 'files'; url: string; ca: string | undefined; keyFile: string; keyId: string; teamId: string }
  | { kind: 'given'; url: string; ca: string | undefined; key: ProviderKey };

/** APNs as a provider: devices register their device token (`push_token`); pushes go over HTTP/2. */
export function apnsProvider(options: {
  /** Where pushes go; asked for when a transport opens (a simulator inside starts only then). */
  endpoint: () => Promise<ApnsEndpoint>;
  topics: ApnsTopics;
  clock: Clock;
  /** What the process should say of this endpoint (the built-in simulator) when it is pushed to. */
  warning?: string | undefined;
  /** The endpoint is the built-in simulator. */
  standIn?: boolean;
}): PushProvider {
  return {
    id: apns.id,
    title: apns.title,
    registration: apnsRegistration,
    async openTransport() {
      const endpoint = await options.endpoint();
      const client =
        endpoint.kind === 'given'
          ? new ApnsClient({ url: endpoint.url, ca: endpoint.ca, key: endpoint.key, clock: options.clock })
          : new ApnsClient({
              url: endpoint.url,
              ca: endpoint.ca,
              key: {
                privateKeyPem: await readFile(endpoint.keyFile, 'utf8'),
                keyId: endpoint.keyId,
                teamId: endpoint.teamId,
              },
              clock: options.clock,
            });
      return {
        transport: new ApnsTransport(client, options.topics),
        warning: options.warning,
        standIn: options.standIn === true,
      };
    },
  };
}

/**
 * APNs made from its settings: Apple's endpoint (or `--apns-url`) with the `.p8` key's file, or,
 * with `--apns sim`, the stand-in the process runs (the built-in simulator). A process that runs
 * none (an API-only one, the OpenAPI document's) never opens the transport.
 */
export const apnsMaker: ProviderMaker<ApnsConfig, ApnsEndpoint> = {
  make(config, { clock, standIn }) {
    if (config.kind === 'sim') {
      return apnsProvider({
        endpoint: () =>
          standIn?.start() ?? Promise.reject(new Error('this process runs no APNs simulator (--apns sim)')),
        topics: config.topics,
        clock,
        standIn: true,
        warning:
          'delivering APNs devices to the built-in simulator: no app of theirs gets a notification. ' +
          'Give --apns production (or sandbox) with --apns-key-file, --apns-key-id and --apns-team-id; --dev for a trial',
      });
    }
    const { url, ca, keyFile, keyId, teamId } = config;
    return apnsProvider({
      endpoint: async () => ({ kind: 'files', url, ca, keyFile, keyId, teamId }),
      topics: config.topics,
      clock,
    });
  },
};
