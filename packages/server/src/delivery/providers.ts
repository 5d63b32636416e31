import type { Clock } from '../kernel/clock.js';
import { readSettings, type Setting, type SettingValues } from '../kernel/settings.js';
import { apns } from './apns/entry.js';
import type { ConfigOf, KeyKeeper, ProviderEntry, PushProvider, StandIn } from './provider.js';
import { webPush } from './web-push/entry.js';

/**
 * The push providers, one line each: the registry, and the one file that names them all. Each is
 * keyed by its part of the server's config (`config.webPush`). The settings table, the processes,
 * the metrics, the OpenAPI document and the tests' import rules read it; a registration body's
 * members are read in its order.
 */
export const PROVIDERS = {
  apns,
  webPush,
} as const satisfies ProviderRegistry;

/** A registry: the product's, or one a test adds a provider of its own to. */
export type ProviderRegistry = Readonly<Record<string, ProviderEntry>>;

/** Each provider's config, by its key in the registry. */
export type ProviderConfigs<Registry extends ProviderRegistry> = {
  -readonly [Key in keyof Registry]: ConfigOf<Registry[Key]>;
};

type Intersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (
  value: infer Both,
) => void
  ? Both
  : never;

/** Every provider's settings group as one table, as its type. */
export type ProviderSettings<Registry extends ProviderRegistry> = Intersection<
  Registry[keyof Registry]['settings']
>;

/** Every provider's settings group as one table, in the registry's order. */
export function providerSettings(registry: ProviderRegistry): Record<string, Setting> {
  return Object.assign({}, ...Object.values(registry).map((entry) => entry.settings));
}

/**
 * Each provider's config from the settings read (every group's values among them), in the
 * registry's order; undefined when one could not be made (its problems are in `problems`).
 */
export function providerConfigs<Registry extends ProviderRegistry>(
  registry: Registry,
  values: Record<string, unknown>,
  problems: string[],
  server: { dev: boolean },
): ProviderConfigs<Registry> | undefined {
  const configs: Record<string, unknown> = {};
  let complete = true;
  for (const [key, entry] of Object.entries(registry)) {
    const group = Object.fromEntries(Object.keys(entry.settings).map((name) => [name, values[name]]));
    configs[key] = entry.configOf(group as SettingValues<Record<string, Setting>>, problems, server);
    if (configs[key] === undefined) complete = false;
  }
  return complete ? (configs as ProviderConfigs<Registry>) : undefined;
}

/** Each provider's config from its settings' defaults (no flag, no variable), as a process without them has it. */
export function defaultProviderConfigs<Registry extends ProviderRegistry>(
  registry: Registry,
): ProviderConfigs<Registry> {
  const read = readSettings(providerSettings(registry), [], {});
  const problems = read.ok === true ? read.problems : ['the defaults could not be read'];
  const configs =
    read.ok === true ? providerConfigs(registry, read.values, problems, { dev: false }) : undefined;
  if (configs === undefined || problems.length > 0) {
    throw new Error(`a provider's default settings make no config: ${problems.join('; ')}`);
  }
  return configs;
}

/** What every provider is made with by a process, besides its own config. */
export interface MakingContext {
  clock: Clock;
  keeper: KeyKeeper;
  /** The stand-ins the process runs, each for the provider its `provider` names. */
  standIns?: readonly StandIn[];
}

/**
 * Loads the code of every provider of the registry, and resolves with what makes them all from
 * their configs: the providers an app takes registrations with and a process opens transports of.
 */
export async function loadProviders<Registry extends ProviderRegistry>(
  registry: Registry,
): Promise<(configs: ProviderConfigs<Registry>, context: MakingContext) => PushProvider[]> {
  const entries = Object.entries(registry);
  const makers = await Promise.all(entries.map(([, entry]) => entry.load()));
  return (configs, context) => {
    const byKey: Record<string, unknown> = configs;
    return entries.map(([key, entry], index) => {
      const standIn = context.standIns?.find((one) => one.provider === entry.id);
      const provider = makers[index]?.make(byKey[key], {
        clock: context.clock,
        keeper: context.keeper,
        standIn,
      });
      if (provider?.id !== entry.id) throw new Error(`the provider of ${key} is not ${entry.id}`);
      return provider;
    });
  };
}

/** Every provider of the registry, made from its config (see loadProviders). */
export async function makeProviders<Registry extends ProviderRegistry>(
  registry: Registry,
  configs: ProviderConfigs<Registry>,
  context: MakingContext,
): Promise<PushProvider[]> {
  return (await loadProviders(registry))(configs, context);
}

/** What providers that are only described are made with: asked for a key or the time, it rejects. */
const DESCRIBED_ONLY: MakingContext = {
  clock: {
    now: () => {
      throw new Error('a described provider reads no clock');
    },
  },
  keeper: {
    getSetting: () => Promise.reject(new Error('a described provider keeps no keys')),
    settingOnce: () => Promise.reject(new Error('a described provider keeps no keys')),
  },
};

/**
 * The providers as the interface describes them, with their default settings: each one's
 * registration member and routes, for the OpenAPI document written without a server. They are
 * never opened: no stand-in runs for them, no key is kept and no time read.
 */
export function describedProviders(registry: ProviderRegistry = PROVIDERS): Promise<PushProvider[]> {
  return makeProviders(registry, defaultProviderConfigs(registry), DESCRIBED_ONLY);
}
