import type { ProviderEntry } from '../provider.js';
import type { ApnsEndpoint } from './provider.js';
import { APNS_SETTINGS, type ApnsConfig, apnsConfigOf } from './settings.js';

/** The provider's id, stored with each device it reaches. */
export const APNS = 'apns';

/**
 * APNs as the registry lists it: its settings (`--apns*`), and its code, loaded when a process
 * makes it. With `--apns sim` a process runs the built-in simulator as its stand-in.
 */
export const apns: ProviderEntry<typeof APNS_SETTINGS, ApnsConfig, ApnsEndpoint> = {
  id: APNS,
  title: 'APNs',
  member: 'push_token',
  memberText: { argument: 'HEX', help: 'its APNs device token' },
  settings: APNS_SETTINGS,
  configOf: apnsConfigOf,
  load: async () => (await import('./provider.js')).apnsMaker,
};
