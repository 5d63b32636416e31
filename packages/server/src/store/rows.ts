import type {
  DestinationState,
  DropReason,
  InactiveReason,
  NotificationStatus,
  Platform,
  PushFailureReason,
} from '@foxbell/sdk/contract';
import type { Account } from '../model/accounts.js';
import type { Device, PushAddress } from '../model/devices.js';
import type { ClaimedDestination, EndedDestination } from '../model/leases.js';
import type { LinkRequest, LinkState } from '../model/links.js';
import type { HandledEvent, StoredNotification } from '../model/notifications.js';
import type { QueuedNotification } from '../model/routing.js';
import type { SendToken } from '../model/tokens.js';
import { legacyProvider } from './sql/migrations.js';

/**
 * Rows of either database mapped to the store's types, so no row shape leaks out. SQLite gives
 * booleans as 0/1 and PostgreSQL as true/false; PostgreSQL gives BIGINT as a string.
 */
export type Row = Record<string, unknown>;

export const bool = (value: unknown) => value === 1 || value === true;
export const maybeNumber = (value: unknown) => (value == null ? null : Number(value));
/** The rows of a `Dialect.jsonArray` column: PostgreSQL's driver parses a json column; SQLite hands over its text. */
export const jsonArrayRows = (value: unknown) =>
  (typeof value === 'string' ? JSON.parse(value) : value) as Row[];

/** An account from its columns, or (`prefix`) from its columns as `<prefix><column>` beside another table's. */
export function accountFromRow(row: Row, prefix = ''): Account {
  return {
    id: row[`${prefix}id`] as string,
    name: (row[`${prefix}name`] as string | null) ?? null,
    keyGeneration: Number(row[`${prefix}key_generation`]),
    createdAt: Number(row[`${prefix}created_at`]),
    deletedAt: maybeNumber(row[`${prefix}deleted_at`]),
    mergedInto: (row[`${prefix}merged_into`] as string | null) ?? null,
  };
}

export function tokenOf(row: Row): SendToken {
  return {
    id: row.id as string,
    accountId: row.account_id as string,
    name: row.name as string,
    kind: row.kind as SendToken['kind'],
    ownStatus: bool(row.own_status),
    deviceNames: bool(row.device_names),
    scenes: row.scenes == null ? null : (JSON.parse(row.scenes as string) as string[]),
    allowUrls: bool(row.allow_urls),
    defaultTarget: (row.default_target as string | null) ?? null,
    expiresAt: maybeNumber(row.expires_at),
    revokedAt: maybeNumber(row.revoked_at),
    createdAt: Number(row.created_at),
  };
}

/**
 * A device's (or a link request's) push address, from its columns: `provider`, `push_address`
 * (the address's key) and `push_data`, its provider's data as JSON.
 */
export function addressOf(row: Row): PushAddress {
  return {
    provider: (row.provider as string | null) ?? legacyProvider(row.push_data),
    key: row.push_address as string,
    data: row.push_data == null ? null : (JSON.parse(row.push_data as string) as Record<string, unknown>),
  };
}

/** The address as its columns `provider`, `push_address` and `push_data` hold it, in that order. */
export const addressColumns = (address: PushAddress) =>
  [address.provider, address.key, address.data === null ? null : JSON.stringify(address.data)] as const;

export function deviceOf(row: Row): Device {
  return {
    id: row.id as string,
    accountId: row.account_id as string,
    name: row.name as string,
    platform: row.platform as Platform,
    address: addressOf(row),
    clientId: (row.client_id as string | null) ?? null,
    addressSince: Number(row.push_since ?? row.created_at),
    inAuto: bool(row.in_auto),
    active: bool(row.active),
    inactiveReason: bool(row.active) ? null : ((row.inactive_reason as InactiveReason | null) ?? null),
    createdAt: Number(row.created_at),
    lastSeenAt: maybeNumber(row.last_seen_at),
  };
}

/** A notification row with its destinations and handled events, each in the order they were made. */
export function notificationOf(row: Row, destinations: Row[], handled: Row[]): StoredNotification {
  return {
    id: row.id as string,
    accountId: row.account_id as string,
    tokenId: row.token_id as string,
    senderName: row.sender_name as string,
    notification: JSON.parse(row.payload as string),
    status: row.status as NotificationStatus,
    reason: (row.reason as DropReason | null) ?? null,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    destinations: destinations.map((destination) => ({
      deviceId: destination.device_id as string,
      deviceName: (destination.device_name as string | null | undefined) ?? null,
      platform: destination.platform as Platform,
      state: destination.state as DestinationState,
      pushStatus: maybeNumber(destination.push_status),
      reason: (destination.reason as PushFailureReason | null) ?? null,
      updatedAt: Number(destination.updated_at),
    })),
    handled: handled.map((event) => ({
      deviceId: event.device_id as string,
      platform: event.platform as Platform,
      action: event.action as HandledEvent['action'],
      at: Number(event.at),
    })),
  };
}

/**
 * Claimed destination rows joined with their device and notification. A notification's
 * destinations are claimed together: its payload is parsed once.
 */
export function claimedFrom(rows: Row[], attemptOf: (row: Row) => number): ClaimedDestination[] {
  const payloads = new Map<string, ClaimedDestination['notification']>();
  return rows.map((row) => {
    const notificationId = row.notification_id as string;
    let notification = payloads.get(notificationId);
    if (!notification) {
      notification = JSON.parse(row.payload as string) as ClaimedDestination['notification'];
      payloads.set(notificationId, notification);
    }
    return {
      notificationId,
      deviceId: row.device_id as string,
      platform: row.platform as Platform,
      address: addressOf(row),
      addressSince: Number(row.device_created_at),
      pushId: row.push_id as string,
      attempt: attemptOf(row),
      senderName: row.sender_name as string,
      notification,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
      unread: maybeNumber(row.unread),
    };
  });
}

/**
 * A destination row the store ended while claiming, with its device's provider as `provider`
 * (PROVIDER_SQL, sql/migrations.ts), and its new state.
 */
export function endedOf(row: Row): EndedDestination {
  const state = row.state as EndedDestination['state'];
  return {
    notificationId: row.notification_id as string,
    deviceId: row.device_id as string,
    provider: row.provider as string,
    state,
    reason: state === 'expired' ? 'expired' : 'attempts_exhausted',
    pushStatus: maybeNumber(row.push_status),
  };
}

/**
 * A queued notification row, joined with its token's `revoked_at` and `expires_at` as
 * `token_revoked_at` and `token_expires_at`, as routing sees it.
 */
export function routeInputOf(row: Row, devices: Device[]): QueuedNotification {
  const notification = JSON.parse(row.payload as string) as StoredNotification['notification'];
  return {
    input: {
      notification: {
        id: row.id as string,
        target: notification.target,
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
      },
      token: { revokedAt: maybeNumber(row.token_revoked_at), expiresAt: maybeNumber(row.token_expires_at) },
      devices,
    },
    tag: notification.tag ?? null,
    senderName: row.sender_name as string,
    notification,
  };
}

export function linkRequestOf(row: Row): LinkRequest {
  return {
    id: row.id as string,
    state: row.state as LinkState,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    device: {
      clientId: row.client_id as string,
      name: row.name as string,
      platform: row.platform as Platform,
      inAuto: bool(row.in_auto),
      address: addressOf(row),
    },
    approved:
      row.approved_account_id == null
        ? null
        : {
            accountId: row.approved_account_id as string,
            deviceId: row.approved_device_id as string,
            at: Number(row.approved_at),
          },
    sealedKey: (row.sealed_key as string | null) ?? null,
    sourceDeviceId: (row.source_device_id as string | null) ?? null,
  };
}
