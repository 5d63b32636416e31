import type { PushProvider } from '../delivery/provider.js';
import { isoTime } from '../kernel/clock.js';
import { type Device, type Freshness, isStale } from '../model/devices.js';
import type { StoredNotification } from '../model/notifications.js';
import type { SendToken } from '../model/tokens.js';

/** What a device's view reads beside the device: now, and what each push provider says of its own. */
export interface DeviceViewing extends Freshness {
  providers: readonly PushProvider[];
}

/**
 * A device as its account sees it (management API). What only some devices have is shown only for
 * them, so a device registered with a push token reads as it always has: `device_id` for a device
 * that linked itself (the app's own id), `transport` for one whose provider names itself
 * (`"web_push"`), `inactive_reason` for one not active (where its rows tell why).
 */
export function deviceView(device: Device, seen: DeviceViewing) {
  const provider = seen.providers.find((one) => one.id === device.address.provider);
  const shownAs = provider?.registration.shownAs;
  return {
    id: device.id,
    name: device.name,
    platform: device.platform,
    ...(device.clientId === null ? {} : { device_id: device.clientId }),
    ...(shownAs === undefined ? {} : { transport: shownAs }),
    in_auto: device.inAuto,
    active: device.active,
    ...(device.inactiveReason === null ? {} : { inactive_reason: device.inactiveReason }),
    created_at: isoTime(device.createdAt),
    last_seen_at: device.lastSeenAt === null ? null : isoTime(device.lastSeenAt),
    stale: isStale(device, seen, provider?.goesQuiet === true),
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
      ...(destination.reason === null ? {} : { reason: destination.reason }),
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
