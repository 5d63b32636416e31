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
import type {
  DestinationRecord,
  HandledEvent,
  InboxPage,
  StoredNotification,
} from '../model/notifications.js';
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

export function accountFromRow(row: Row): Account {
  return {
    id: row.id as string,
    name: (row.name as string | null) ?? null,
    keyGeneration: Number(row.key_generation),
    createdAt: Number(row.created_at),
    deletedAt: maybeNumber(row.deleted_at),
    mergedInto: (row.merged_into as string | null) ?? null,
  };
}

/** The account of a token row joined with its account's columns as `a_<column>`. */
export function joinedAccountFromRow(row: Row): Account {
  return accountFromRow({
    id: row.a_id,
    name: row.a_name,
    key_generation: row.a_key_generation,
    created_at: row.a_created_at,
    deleted_at: row.a_deleted_at,
    merged_into: row.a_merged_into,
  });
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

/** The address's provider data as its column holds it. */
export function addressData(address: PushAddress): string | null {
  return address.data === null ? null : JSON.stringify(address.data);
}

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

export function destinationOf(row: Row): DestinationRecord {
  return {
    deviceId: row.device_id as string,
    deviceName: (row.device_name as string | null | undefined) ?? null,
    platform: row.platform as Platform,
    state: row.state as DestinationState,
    pushStatus: maybeNumber(row.push_status),
    reason: (row.reason as PushFailureReason | null) ?? null,
    updatedAt: Number(row.updated_at),
  };
}

export function handledOf(row: Row): HandledEvent {
  return {
    deviceId: row.device_id as string,
    platform: row.platform as Platform,
    action: row.action as HandledEvent['action'],
    at: Number(row.at),
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
    destinations: destinations.map(destinationOf),
    handled: handled.map(handledOf),
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
    return claimedOf(row, attemptOf(row), notification);
  });
}

function claimedOf(
  row: Row,
  attempt: number,
  notification: StoredNotification['notification'],
): ClaimedDestination {
  return {
    notificationId: row.notification_id as string,
    deviceId: row.device_id as string,
    platform: row.platform as Platform,
    address: addressOf(row),
    addressSince: Number(row.device_created_at),
    pushId: row.push_id as string,
    attempt,
    senderName: row.sender_name as string,
    notification,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    unread: maybeNumber(row.unread),
  };
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

/** A page of an inbox from its rows, read one past the limit: a row past it says more follow. */
export function inboxPageOf(
  rows: Row[],
  limit: number,
  recordOf: (row: Row) => StoredNotification,
): InboxPage {
  const items = rows.slice(0, limit).map(recordOf);
  const last = items.at(-1);
  return {
    items,
    next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : undefined,
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
