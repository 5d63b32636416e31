// A person's devices, each reached through one push provider.
import type { Platform } from '@foxbell/sdk/contract';

/**
 * Where a device's pushes go, in its push provider's terms. `key` names it: one active device
 * holds an address, and a registration of one another device holds moves it. `data` is whatever
 * else the provider needs to push there (a Web Push subscription's keys): the provider reads it,
 * nothing else does. A provider is a room of delivery/; nothing outside it knows any by name.
 */
export interface PushAddress {
  /** The provider's id: `apns`, `web-push`. */
  provider: string;
  key: string;
  data: Record<string, unknown> | null;
}

export interface Device {
  id: string;
  accountId: string;
  name: string;
  platform: Platform;
  address: PushAddress;
  /** The app's own id for itself (`device_id`), for a device that linked itself; else null. */
  clientId: string | null;
  /** When its push address was registered (a later one may replace the first). */
  addressSince: number;
  inAuto: boolean;
  active: boolean;
  createdAt: number;
  /** When its device key was last used (kept to the minute); null for a device with no key, or unused. */
  lastSeenAt: number | null;
}

/** What a device's `stale` is judged by: now, and how long a device may go unseen. */
export interface Freshness {
  now: number;
  staleMs: number;
}

/**
 * A device not seen (its key unused, or, without a key, since it was registered) for `staleMs`,
 * where its provider may drop it without a word (`quiet`): it may receive nothing.
 */
export function isStale(device: Device, { now, staleMs }: Freshness, quiet: boolean): boolean {
  return quiet && now - (device.lastSeenAt ?? device.createdAt) >= staleMs;
}
