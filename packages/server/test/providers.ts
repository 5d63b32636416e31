import type { PushProvider } from '../src/delivery/provider.js';
import { pushProviders } from '../src/delivery/providers.js';
import { defaultPushHosts, type PushHosts } from '../src/delivery/web-push/hosts.js';
import { type Clock, systemClock } from '../src/kernel/clock.js';
import type { Store } from '../src/store/store.js';

/**
 * The product's providers as an API in a test takes registrations with: Web Push's subscriptions
 * to `hosts` (Apple's, Google's, Mozilla's, Microsoft's by default). A test that delivers opens
 * transports of its own (delivery-helpers.ts), so APNs here has no endpoint.
 */
export function apiProviders(
  store: Store,
  clock: Clock = systemClock,
  options: { hosts?: PushHosts } = {},
): PushProvider[] {
  return pushProviders({
    clock,
    keeper: store,
    apns: {
      endpoint: () => Promise.reject(new Error('an API test opens no APNs transport')),
      topics: {
        ios: 'app.foxbell.Foxbell',
        watchos: 'app.foxbell.Foxbell.watchkitapp',
        visionos: 'app.foxbell.Foxbell',
      },
    },
    webPush: { subject: undefined, hosts: options.hosts ?? defaultPushHosts() },
  });
}
