import type { ServerConfig } from '../config/server-settings.js';
import type { PushProvider } from '../delivery/provider.js';
import {
  makeProviders,
  PROVIDERS,
  type ProviderConfigs,
  type ProviderRegistry,
} from '../delivery/providers.js';
import type { PushTransport } from '../delivery/transport.js';
import type { Clock } from '../kernel/clock.js';
import { type BuiltInSimulator, builtInSimulator } from '../simulator/in-process.js';
import type { Store } from '../store/store.js';

/**
 * The push side of a process: every provider of the registry, made from its part of `config`,
 * and, once delivery opens their transports, the simulator when it runs inside as a provider's
 * stand-in. An API-only process uses the providers for registrations and never opens a transport
 * (nor starts a simulator).
 */
export interface PushProviders {
  readonly providers: readonly PushProvider[];
  /**
   * Opens every provider's transport, by provider id. What the process should say of them goes to
   * `warn` (outside dev mode): at once, or for a stand-in, when the first push reaches it.
   */
  openTransports(warn: (warning: string) => void): Promise<{
    transports: Record<string, PushTransport>;
    standIns: string[];
  }>;
  /** The simulator inside the process, when the settings ask for one. */
  readonly simulator: BuiltInSimulator | undefined;
  /** Closes the transports opened and the simulator. */
  close(): Promise<void>;
}

/**
 * The push side of a process with `registry`'s providers (the product's, unless a test adds one of
 * its own), each made from its part of `config`.
 */
export async function pushProviders<Registry extends ProviderRegistry = typeof PROVIDERS>(
  config: ServerConfig & ProviderConfigs<Registry>,
  store: Store,
  clock: Clock,
  registry: Registry = PROVIDERS as ProviderRegistry as Registry,
): Promise<PushProviders> {
  const simulator = builtInSimulator(config, clock);
  const providers = await makeProviders(registry, config, {
    clock,
    keeper: store,
    standIns: simulator ? [simulator] : [],
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
        // A stand-in is warned of when the first push reaches it: one no push reaches (no device
        // of its provider anywhere, as with the web app alone) changes nothing and is worth no word.
        transports[provider.id] = standIn && said ? sayingAtFirstPush(transport, said) : transport;
        if (standIn) standIns.push(provider.id);
        else said?.();
      }
      return { transports, standIns };
    },
    simulator,
    async close() {
      await Promise.all(opened.map((transport) => transport.close()));
      await simulator?.close();
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
    ...(transport.warm ? { warm: transport.warm.bind(transport) } : {}),
    close: () => transport.close(),
  };
}
