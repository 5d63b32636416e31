import * as z from 'zod';
import type { Clock } from '../../kernel/clock.js';
import type { KeyKeeper, ProviderMaker, PushProvider } from '../provider.js';
import type { Resolver } from './address-guard.js';
import { webPush } from './entry.js';
import type { PushHosts } from './hosts.js';
import { webPushRegistration } from './registration.js';
import { DEFAULT_WEB_PUSH_SUBJECT, type WebPushConfig } from './settings.js';
import { WebPushTransport } from './transport.js';
import { VapidKeySource } from './vapid.js';

const keyResponse = z
  .object({ public_key: z.string().meta({ pattern: '^[A-Za-z0-9_-]{87}$' }) })
  .meta({ id: 'WebPushKey' });

/**
 * Web Push as a provider: devices register a browser's subscription (`web_push`); pushes are
 * encrypted for it and signed with the deployment's VAPID key pair, which `GET /v1/web-push/key`
 * publishes. Its pushes carry the device's unread count, for the web app's badge.
 */
export function webPushProvider(options: {
  /** The VAPID `sub`; undefined: the project's page, said at start. */
  subject: string | undefined;
  hosts: PushHosts;
  /** Where the key pair is kept: the settings table, so every process signs alike. */
  keeper: KeyKeeper;
  clock: Clock;
  /** PEM certificates to trust besides Node's default ones (`--web-push-ca`). */
  ca?: string | undefined;
  resolve?: Resolver;
  timeoutMs?: number;
}): PushProvider {
  const vapid = new VapidKeySource(options.keeper);
  return {
    id: webPush.id,
    title: webPush.title,
    registration: webPushRegistration(options.hosts),
    countsUnread: true,
    goesQuiet: true,
    async routes(app) {
      // The VAPID application server key a browser subscribes with: public, so no credential.
      app.get(
        '/v1/web-push/key',
        {
          config: {
            credentials: 'none',
            doc: {
              operationId: 'getWebPushKey',
              summary: 'The VAPID application server key a browser subscribes to Web Push with',
              responses: {
                200: {
                  description: 'The key, base64url (65 bytes, uncompressed P-256).',
                  schema: keyResponse,
                },
              },
            },
          },
        },
        async () => ({ public_key: (await vapid.keys()).publicKey }),
      );
    },
    async openTransport() {
      const transport = new WebPushTransport({
        keys: () => vapid.keys(),
        subject: options.subject ?? DEFAULT_WEB_PUSH_SUBJECT,
        hosts: options.hosts,
        clock: options.clock,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
      return {
        transport,
        warning:
          options.subject === undefined
            ? `Web Push is signed with the subject ${DEFAULT_WEB_PUSH_SUBJECT}: give --web-push-subject mailto:you@example.com, so push services can reach you about your pushes`
            : undefined,
      };
    },
  };
}

/** Web Push made from its settings, with its key pair kept where the process keeps keys. */
export const webPushMaker: ProviderMaker<WebPushConfig> = {
  make: (config, { clock, keeper }) =>
    webPushProvider({ subject: config.subject, hosts: config.hosts, ca: config.ca, keeper, clock }),
};
