import { isoTime } from '../kernel/clock.js';
import type { Device, SendToken, StoredNotification } from '../store/store.js';

/**
 * A device as its account sees it (management API). What only some devices have is shown only for
 * them, so a device registered with a push token reads as it always has: `device_id` for a device
 * that linked itself (the app's own id), `transport: "web_push"` for one reached by Web Push.
 */
export function deviceView(device: Device, seen: Freshness) {
  return {
    id: device.id,
    name: device.name,
    platform: device.platform,
    ...(device.clientId === null ? {} : { device_id: device.clientId }),
    ...(device.webPush ? { transport: 'web_push' as const } : {}),
    in_auto: device.inAuto,
    active: device.active,
    created_at: isoTime(device.createdAt),
    last_seen_at: device.lastSeenAt === null ? null : isoTime(device.lastSeenAt),
    stale: isStale(device, seen),
  };
}

/** What a device's freshness is judged by: now, and how long a Web Push device may go unseen. */
export interface Freshness {
  now: number;
  staleMs: number;
}

/**
 * A Web Push device not seen (its key unused, or, without a key, since it was registered) for
 * `staleMs`: its subscription may be gone without a word, as iOS drops one silently. An APNs
 * device is never stale: APNs says when its token is gone.
 */
export function isStale(device: Device, { now, staleMs }: Freshness): boolean {
  return device.webPush !== null && now - (device.lastSeenAt ?? device.createdAt) >= staleMs;
}

/** A token's options, without its secret. */
export function tokenView(token: SendToken) {
  return {
    id: token.id,
    name: token.name,
    kind: token.kind,
    own_status: token.ownStatus,
    device_names: token.deviceNames,
    scenes: token.scenes,
    allow_urls: token.allowUrls,
    default_target: token.defaultTarget,
    expires_at: token.expiresAt === null ? null : isoTime(token.expiresAt),
    revoked_at: token.revokedAt === null ? null : isoTime(token.revokedAt),
    created_at: isoTime(token.createdAt),
  };
}

/**
 * The spec's notification status record. Device ids stay out: a send token does not see them.
 * Each destination names its device where the caller may read device names (an account key, a
 * send token with `device_names`), so two iPhones can be told apart.
 */
export function statusRecordView(stored: StoredNotification, { deviceNames }: { deviceNames: boolean }) {
  return {
    id: stored.id,
    status: stored.status,
    ...(stored.reason === null ? {} : { reason: stored.reason }),
    destinations: stored.destinations.map((destination) => ({
      ...(deviceNames && destination.deviceName !== null ? { name: destination.deviceName } : {}),
      platform: destination.platform,
      state: destination.state,
      ...(destination.pushStatus === null ? {} : { push_status: destination.pushStatus }),
      updated_at: isoTime(destination.updatedAt),
    })),
    handled: stored.handled.map((event) => ({
      action: event.action,
      platform: event.platform,
      at: isoTime(event.at),
    })),
  };
}

/** One message of the inbox: what was sent, who sent it, and how far it got. */
export function inboxItemView(stored: StoredNotification) {
  return {
    id: stored.id,
    sender: stored.senderName,
    ...stored.notification,
    status: stored.status,
    ...(stored.reason === null ? {} : { reason: stored.reason }),
    created_at: isoTime(stored.createdAt),
    expires_at: isoTime(stored.expiresAt),
  };
}
