// A person's devices, each reached through one push provider.
import type { InactiveReason, Platform } from '@foxbell/sdk/contract';

/**
 * Where a device's pushes go, in its push provider's terms. `key` names it: one active device
 * holds an address, and a registration of one another device holds moves it. `data` is whatever
 * else the provider needs to push there (a Web Push subscription's keys): the provider reads it,
 * nothing else does. A provider is a module of delivery/; nothing outside it knows any by name.
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
  /**
   * Why it is not active; null while it is, and for a device an older release made inactive
   * (before the migration that keeps it, or beside it in a rolling upgrade) where its rows
   * cannot tell.
   */
  inactiveReason: InactiveReason | null;
  createdAt: number;
  /** When its device key was last used (kept to the minute); null for a device with no key, or unused. */
  lastSeenAt: number | null;
}

/** A push service said a device's push address is gone: why the device is made inactive. */
export type AddressGone = Extract<InactiveReason, 'subscription_gone' | 'unregistered'>;

/** Why a device leaves its account's use, beside its push service's word: its removal or its move. */
export type DeviceLeaving = Extract<InactiveReason, 'removed' | 'moved'>;

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
