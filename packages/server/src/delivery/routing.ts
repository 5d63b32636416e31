import { devicesForTarget } from '@foxbell/sdk/contract';
import type { RouteDecision, RouteInput } from '../store/store.js';
import { tokenEnded } from '../store/token-liveness.js';

/**
 * Where a queued notification goes, decided when delivery starts: nowhere if its token was
 * revoked or expired by then, if its ttl ran out in the queue, or if no device matches.
 */
export function routeNotification(input: RouteInput, now: number, newApnsId: () => string): RouteDecision {
  const { token, notification } = input;
  const ended = tokenEnded(token, now);
  if (ended) return { kind: 'drop', reason: ended };
  if (notification.expiresAt <= now) return { kind: 'drop', reason: 'expired' };
  const devices = devicesForTarget(notification.target, input.devices);
  if (devices.length === 0) return { kind: 'drop', reason: 'no_matching_device' };
  return { kind: 'deliver', destinations: devices.map((device) => ({ device, apnsId: newApnsId() })) };
}
