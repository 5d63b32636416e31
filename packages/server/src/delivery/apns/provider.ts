import { readFile } from 'node:fs/promises';
import type { Clock } from '../../kernel/clock.js';
import type { PushProvider } from '../provider.js';
import { ApnsClient } from './client.js';
import type { ProviderKey } from './provider-token.js';
import type { ApnsTopics } from './push-request.js';
import { APNS, apnsRegistration } from './registration.js';
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
    id: APNS,
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
