import type { Device, RouteDecision, RouteInput } from '../store/store.js';

/**
 * Keywords that pick devices by platform; `ios`, `watchos` and `visionos` are names, not keywords.
 * A Map: a target is a user's string, and an object would answer `toString` from its prototype.
 */
const PLATFORM_TARGETS: ReadonlyMap<string, Device['platform']> = new Map([
  ['iphone', 'ios'],
  ['watch', 'watchos'],
  ['vision', 'visionos'],
]);

/**
 * The devices a `target` reaches among a person's active devices: `auto` those included in auto,
 * `iphone`/`watch`/`vision` by platform, otherwise the one device with exactly that name (a name
 * two devices share reaches none), otherwise the device with that id.
 */
export function devicesForTarget(target: string, devices: readonly Device[]): Device[] {
  if (target === 'auto') return devices.filter((device) => device.inAuto);
  const platform = PLATFORM_TARGETS.get(target);
  if (platform) return devices.filter((device) => device.platform === platform);
  const named = devices.filter((device) => device.name === target);
  if (named.length > 0) return named.length === 1 ? named : [];
  return devices.filter((device) => device.id === target);
}

/**
 * Where a queued notification goes, decided when delivery starts: nowhere if its token was
 * revoked or expired by then, if its ttl ran out in the queue, or if no device matches.
 */
export function routeNotification(input: RouteInput, now: number, newApnsId: () => string): RouteDecision {
  const { token, notification } = input;
  if (token.revokedAt !== null && token.revokedAt <= now) return { kind: 'drop', reason: 'token_revoked' };
  if (token.expiresAt !== null && token.expiresAt <= now) return { kind: 'drop', reason: 'token_expired' };
  if (notification.expiresAt <= now) return { kind: 'drop', reason: 'expired' };
  const devices = devicesForTarget(notification.target, input.devices);
  if (devices.length === 0) return { kind: 'drop', reason: 'no_matching_device' };
  return { kind: 'deliver', destinations: devices.map((device) => ({ device, apnsId: newApnsId() })) };
}
