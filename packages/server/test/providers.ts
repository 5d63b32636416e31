import type { PushProvider } from '../src/delivery/provider.js';
import {
  defaultProviderConfigs,
  loadProviders,
  PROVIDERS,
  type ProviderConfigs,
} from '../src/delivery/providers.js';
import { type Clock, systemClock } from '../src/kernel/clock.js';
import type { Store } from '../src/store/store.js';

type Configs = ProviderConfigs<typeof PROVIDERS>;

const makeAll = await loadProviders(PROVIDERS);
const DEFAULTS = defaultProviderConfigs(PROVIDERS);

/** The product's providers' ids, as the metrics label them. */
export const PROVIDER_IDS = Object.values(PROVIDERS).map((entry) => entry.id);

/**
 * The product's providers, from the registry, as an API in a test takes registrations with: each
 * made from its default settings, with what `configs` changes of them (Web Push's hosts, say). A
 * test that delivers opens transports of its own (simulated-apns.ts): no stand-in runs here.
 */
export function apiProviders(
  store: Store,
  clock: Clock = systemClock,
  configs: { [Key in keyof Configs]?: Partial<Configs[Key]> } = {},
): PushProvider[] {
  const merged = Object.fromEntries(
    Object.entries(DEFAULTS).map(([key, config]) => [key, { ...config, ...configs[key as keyof Configs] }]),
  ) as Configs;
  return makeAll(merged, { clock, keeper: store });
}
