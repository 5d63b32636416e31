import * as z from 'zod/mini';
import type { InactiveReason, PushFailureReason } from './push-failures.js';

export const PLATFORMS = ['ios', 'watchos', 'visionos'] as const;
export type Platform = (typeof PLATFORMS)[number];

/**
 * The statuses a notification moves through, in order. `status` is the furthest one observed, so
 * it only ever moves to a later one: `cleared` after `opened` stays `cleared`.
 */
export const STATUS_PROGRESSION = ['accepted', 'sent_to_push', 'opened', 'cleared'] as const;
/**
 * Every notification `status`: the progression, and `dropped`, which stands apart and is final.
 * Written out (its type makes it the progression and `dropped`): a spread is kept in an app's
 * bundle of the SDK even where nothing reads it.
 */
export const NOTIFICATION_STATUSES = [
  'accepted',
  'sent_to_push',
  'opened',
  'cleared',
  'dropped',
] as const satisfies readonly [...typeof STATUS_PROGRESSION, 'dropped'];
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export type ProgressStatus = (typeof STATUS_PROGRESSION)[number];

/** What a person's device reports having done with a notification; each is a status as well. */
export const HANDLED_ACTIONS = ['opened', 'cleared'] as const satisfies readonly ProgressStatus[];
export type HandledAction = (typeof HANDLED_ACTIONS)[number];

/**
 * How far along a status is: its place in the progression, or -1 for `dropped` and for a status
 * this version does not know (a newer server may add one).
 */
export function progressOf(status: string): number {
  return (STATUS_PROGRESSION as readonly string[]).indexOf(status);
}

/**
 * The status a notification takes when `observed` happens to it, or undefined when it keeps its
 * own: `status` is the furthest state observed, and `dropped` is final.
 */
export function statusAfter<Status extends ProgressStatus>(
  current: string,
  observed: Status,
): Status | undefined {
  return current !== 'dropped' && progressOf(observed) > progressOf(current) ? observed : undefined;
}

export const DROP_REASONS = ['token_revoked', 'token_expired', 'expired', 'no_matching_device'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export const DESTINATION_STATES = [
  'pending',
  'sending',
  'accepted',
  'failed_permanent',
  'expired',
  'superseded',
  'skipped',
] as const;
export type DestinationState = (typeof DESTINATION_STATES)[number];

/**
 * The destination states in which a push has ended without reaching its device: rejected or given
 * up (`failed_permanent`), out of time (`expired`), replaced by a newer send of its tag
 * (`superseded`), or not made (`skipped`). `pending` and `sending` may still reach it; `accepted`
 * did.
 */
export const UNREACHED_STATES = [
  'failed_permanent',
  'expired',
  'superseded',
  'skipped',
] as const satisfies readonly DestinationState[];

/**
 * Whether a notification will reach no device: it was dropped, or it is routed and every device's
 * push has ended unreached (`UNREACHED_STATES`). An empty `destinations` is not an ending (it may
 * not be routed yet), and a state this version does not know is taken as one that may still reach
 * its device. A status past `accepted` means a device has it, whatever the destinations say.
 */
export function willNotArrive(record: {
  status: string;
  destinations: readonly { state: string }[];
}): boolean {
  if (record.status === 'dropped') return true;
  return (
    progressOf(record.status) <= 0 &&
    record.destinations.length > 0 &&
    record.destinations.every(({ state }) => (UNREACHED_STATES as readonly string[]).includes(state))
  );
}

export const NOTIFICATION_ID_PATTERN = /^ntf_[A-Za-z0-9_-]+$/;
export const REQUEST_ID_PATTERN = /^req_[A-Za-z0-9_-]+$/;
/** `YYYY-MM-DDTHH:MM:SS.mmmZ`, the only timestamp form of the interface. */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The milliseconds of a timestamp of the interface's form, or undefined when it names no real
 * moment. `Date.parse` rolls `2027-02-30` over to March 2 and reads `24:00` as the next day: a
 * timestamp counts only when printing its moment gives back the same text.
 */
export function parseTimestamp(text: string): number | undefined {
  if (!TIMESTAMP_PATTERN.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && new Date(ms).toISOString() === text ? ms : undefined;
}

// Response schemas are loose objects: a newer server may add members, and an older client
// must keep working when it does. Enumerations stay open for the same reason.

export const sendResponseSchema = z.looseObject({
  id: z.string(),
  status: z.enum(['accepted']),
  request_id: z.string(),
});
export type SendResponse = z.infer<typeof sendResponseSchema>;

export const destinationSchema = z.looseObject({
  platform: z.string(),
  state: z.string(),
  push_status: z.optional(z.custom<number | null>((value) => value === null || Number.isInteger(value))),
  updated_at: z.string(),
  reason: z.optional(z.string()),
});

export const statusRecordSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  reason: z.optional(z.string()),
  destinations: z.array(destinationSchema),
  handled: z.array(z.unknown()),
});

export interface Destination {
  /** The device's name, where the credential may read device names (an account key; a send token with `device_names`). */
  name?: string | undefined;
  platform: Platform | (string & {});
  state: DestinationState | (string & {});
  push_status?: number | null | undefined;
  updated_at: string;
  /** Present when `state` is `failed_permanent` or `expired`: why the push will not arrive (see `pushFailureInWords`). */
  reason?: PushFailureReason | (string & {}) | undefined;
}

export interface StatusRecord {
  id: string;
  status: NotificationStatus | (string & {});
  reason?: DropReason | (string & {}) | undefined;
  destinations: Destination[];
  handled: unknown[];
}

export const deviceSchema = z.looseObject({ name: z.string(), platform: z.string() });
export const deviceListSchema = z.looseObject({ devices: z.array(deviceSchema) });

export interface Device {
  name: string;
  platform: Platform | (string & {});
  /** Listed with an account key only: the device's id, and its freshness (see `seenInWords`). */
  id?: string;
  active?: boolean;
  last_seen_at?: string | null;
  stale?: boolean;
  /** Listed with an account key, while `active` is false: why (see `inactiveInWords`). */
  inactive_reason?: InactiveReason | (string & {});
}

/** A scene of the catalog as this service lays it out; another service may lay its own out otherwise. */
export const catalogSceneSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  current_version: z.int(),
  versions: z.array(z.looseObject({ version: z.int(), params: z.looseObject({}) })),
});

export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.optional(z.string()),
    field: z.optional(z.string()),
    details: z.optional(z.looseObject({})),
  }),
  request_id: z.optional(z.string()),
});
