// Routing's decision: which devices a queued notification goes to, or why it is dropped.
import { type DropReason, devicesForTarget } from '@foxbell/sdk/contract';
import type { Device } from './devices.js';
import type { StoredNotification } from './notifications.js';
import { tokenEnded } from './tokens.js';

/** What routing needs to know of a queued notification. */
export interface RouteInput {
  notification: { id: string; target: string; createdAt: number; expiresAt: number };
  token: { revokedAt: number | null; expiresAt: number | null };
  /** The account's active devices, oldest first. */
  devices: Device[];
}

/** What routing decided: drop the notification, or one destination per device with its `apns-id`. */
export type RouteDecision =
  | { kind: 'drop'; reason: DropReason }
  | { kind: 'deliver'; destinations: { device: Device; pushId: string }[] };

/** A queued notification as routing reads it: what `decide` sees, and what its pushes need. */
export interface QueuedNotification {
  input: RouteInput;
  /** The tag its destinations carry. */
  tag: string | null;
  senderName: string;
  notification: StoredNotification['notification'];
}

/**
 * Where a queued notification goes, decided when delivery starts: nowhere if its token was
 * revoked or expired by then, if its ttl ran out in the queue, or if no device matches.
 */
export function routeNotification(input: RouteInput, now: number, newPushId: () => string): RouteDecision {
  const { token, notification } = input;
  const ended = tokenEnded(token, now);
  if (ended) return { kind: 'drop', reason: ended };
  if (notification.expiresAt <= now) return { kind: 'drop', reason: 'expired' };
  const devices = devicesForTarget(notification.target, input.devices);
  if (devices.length === 0) return { kind: 'drop', reason: 'no_matching_device' };
  return { kind: 'deliver', destinations: devices.map((device) => ({ device, pushId: newPushId() })) };
}
