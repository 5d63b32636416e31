import type { Platform } from './records.js';

/**
 * What the service does besides checking fields, written once for the reference server and for
 * the testing kit (`@foxbell/sdk/testing`), which plays the service in an app's tests: which
 * devices a target reaches, the devices of a trial account, when the monthly quota
 * renews, and the words of the errors both give.
 */

/** Epoch milliseconds at which the UTC month holding `ms` ends: when the monthly quota renews. */
export function nextUtcMonthStart(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/**
 * Target keywords that pick devices by platform; `ios`, `watchos` and `visionos` are names, not
 * keywords. A Map: a target is a user's string, and an object would have `toString` from its
 * prototype.
 */
export const PLATFORM_TARGETS: ReadonlyMap<string, Platform> = new Map([
  ['iphone', 'ios'],
  ['watch', 'watchos'],
  ['vision', 'visionos'],
]);

/** What routing needs to know of a device. */
export interface Routable {
  platform: Platform;
  name: string;
  /** Absent where devices have no ids (the testing kit's). */
  id?: string;
  /** Whether `auto` reaches it; absent means it does. */
  inAuto?: boolean;
}

/**
 * The devices a `target` reaches among a person's active devices: `auto` those included in auto,
 * `iphone`/`watch`/`vision` by platform, otherwise the one device with exactly that name (a name
 * two devices share reaches none), otherwise the device with that id.
 */
export function devicesForTarget<Device extends Routable>(
  target: string,
  devices: readonly Device[],
): Device[] {
  if (target === 'auto') return devices.filter((device) => device.inAuto !== false);
  const platform = PLATFORM_TARGETS.get(target);
  if (platform) return devices.filter((device) => device.platform === platform);
  const named = devices.filter((device) => device.name === target);
  if (named.length > 0) return named.length === 1 ? named : [];
  return devices.filter((device) => device.id !== undefined && device.id === target);
}

/** The devices of a trial account (`--dev`) and of the testing kit: one of each platform. */
export const DEV_DEVICES = [
  { name: 'iPhone', platform: 'ios' },
  { name: 'Apple Watch', platform: 'watchos' },
  { name: 'Vision Pro', platform: 'visionos' },
] as const satisfies readonly { name: string; platform: Platform }[];

/** The errors both the server and the testing kit give, in one wording. */
export const MESSAGES = {
  jsonOnly: 'this endpoint takes application/json only',
  notJson: 'the body is not valid JSON',
  notAnObject: 'the body must be a JSON object',
  idempotencyKeyShape: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
  idempotencyConflict:
    'this Idempotency-Key was used for a different request; resend the original, or use a new key for a new notification',
  tooLarge: (bytes: number) =>
    `the request is over ${bytes} bytes (path, query string, headers and body as sent)`,
  unknownCredential: 'the credential is not known to this service; check the token and the base URL',
  /** An id that names nothing the caller may see: `no such notification`. */
  noSuch: (what: string) => `no such ${what}`,
  noRoute: (method: string) => `no route for ${method} at this path`,
  rateLimited: (scope: 'token' | 'account') =>
    `too many sends from this ${scope} in the last minute; retry after Retry-After`,
  quotaExceeded: 'the monthly send quota is used up; it renews with the next UTC month',
  paused: 'sends are paused; retry after Retry-After',
} as const;
