import { type Clock, systemClock } from '../kernel/clock.js';
import { type ApnsEndpoint, apnsProvider } from './apns/provider.js';
import type { ApnsTopics } from './apns/push-request.js';
import type { PushProvider } from './provider.js';
import { defaultPushHosts, type PushHosts } from './web-push/hosts.js';
import { webPushProvider } from './web-push/provider.js';
import type { KeyKeeper } from './web-push/vapid.js';

/** What the providers are made with: each one's settings, and what they share. */
export interface ProviderSettings {
  clock: Clock;
  /** The settings table's part a provider keeps its keys in (Web Push's VAPID pair). */
  keeper: KeyKeeper;
  apns: {
    endpoint: () => Promise<ApnsEndpoint>;
    topics: ApnsTopics;
    warning?: string | undefined;
    standIn?: boolean;
  };
  webPush: { subject: string | undefined; hosts: PushHosts; ca?: string | undefined };
}

/**
 * The push providers, one line each: the registry the API takes registrations from and a worker
 * opens transports with. A device registers with one of them, in this order of the body's members.
 */
export function pushProviders(settings: ProviderSettings): PushProvider[] {
  const { clock, keeper } = settings;
  return [apnsProvider({ ...settings.apns, clock }), webPushProvider({ ...settings.webPush, keeper, clock })];
}

/** A keeper for providers that are only described: asked for a key, it refuses. */
const NOTHING_KEPT = {
  getSetting: () => Promise.reject(new Error('a described provider keeps no keys')),
  settingOnce: () => Promise.reject(new Error('a described provider keeps no keys')),
};

/**
 * The providers as the interface describes them, with their default settings: each one's
 * registration member and routes, for the OpenAPI document written without a server. They are
 * never opened: APNs has no endpoint here, and Web Push no keys.
 */
export function describedProviders(): PushProvider[] {
  return pushProviders({
    clock: systemClock,
    keeper: NOTHING_KEPT,
    apns: {
      endpoint: () => Promise.reject(new Error('a described provider opens no transport')),
      topics: { ios: '', watchos: '', visionos: '' },
    },
    webPush: { subject: undefined, hosts: defaultPushHosts() },
  });
}
