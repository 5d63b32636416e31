import { isoTime } from '../kernel/clock.js';
import type { Device, SendToken, StoredNotification } from '../store/store.js';

/**
 * A device as its account sees it (management API). What only some devices have is shown only for
 * them, so a device registered with a push token reads as it always has: `device_id` for a device
 * that linked itself (the app's own id), `transport: "web_push"` for one reached by Web Push.
 */
export function deviceView(device: Device) {
  return {
    id: device.id,
    name: device.name,
    platform: device.platform,
    ...(device.clientId === null ? {} : { device_id: device.clientId }),
    ...(device.webPush ? { transport: 'web_push' as const } : {}),
    in_auto: device.inAuto,
    active: device.active,
    created_at: isoTime(device.createdAt),
  };
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

/** The spec's notification status record. Device ids stay out: a send token does not see them. */
export function statusRecordView(stored: StoredNotification) {
  return {
    id: stored.id,
    status: stored.status,
    ...(stored.reason === null ? {} : { reason: stored.reason }),
    destinations: stored.destinations.map((destination) => ({
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
