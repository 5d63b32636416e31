import {
  DESTINATION_STATES,
  DROP_REASONS,
  INACTIVE_REASONS,
  LEVELS,
  NOTIFICATION_STATUSES,
  PLATFORMS,
  PUSH_FAILURE_REASONS,
} from '@foxbell/sdk/contract';
import { HANDLED_ACTIONS, OPTIONAL_FIELDS, SEND_FIELD_NAMES } from '@foxbell/sdk/server-contract';
import * as z from 'zod';
import type { PushProvider } from '../delivery/provider.js';
import { isoTime } from '../kernel/clock.js';
import { type Device, type Freshness, isStale } from '../model/devices.js';
import type { StoredNotification } from '../model/notifications.js';
import type { SendToken } from '../model/tokens.js';
import { SEND_FIELDS } from '../send/field-schemas.js';
import { idOf, timestamp } from './schema-parts.js';

// The objects more than one route responds with: each one's schema (what it is serialized with and
// what the document lists: http/route-doc.ts), and the view that makes it from the model.

/** What a device's view reads beside the device: now, and what each push provider says of its own. */
export interface DeviceViewing extends Freshness {
  providers: readonly PushProvider[];
}

const makeDeviceSchema = (transports: readonly string[]) =>
  z
    .object({
      id: idOf('dev'),
      name: z.string(),
      platform: z.enum(PLATFORMS),
      device_id: z
        .string()
        .optional()
        .meta({ description: "A device that linked itself: the app's own id for itself." }),
      transport: z.enum(transports).optional().meta({
        description:
          'The push provider that reaches the device, where that provider names itself; absent otherwise.',
      }),
      in_auto: z.boolean(),
      active: z.boolean(),
      inactive_reason: z.enum(INACTIVE_REASONS).optional().meta({
        description:
          'Only while active is false: its push service said its address is gone (subscription_gone, unregistered), a person removed it (removed), or another account registered it (moved). Absent where the server cannot tell (a device made inactive before it kept this).',
      }),
      created_at: timestamp,
      last_seen_at: timestamp.nullable().meta({
        description:
          'When its device key was last used (to the minute); null for a device with no key, or unused.',
      }),
      stale: z.boolean().meta({
        description:
          "A device whose push service may drop it without a word, not seen for the server's --device-stale-days (30 by default): it may receive nothing.",
      }),
    })
    .meta({ id: 'Device' });

type DeviceSchema = ReturnType<typeof makeDeviceSchema>;
export type DeviceResponse = z.output<DeviceSchema>;

/** One schema for each set of transports, so every route of an app (and every app alike) shares it. */
const deviceSchemas = new Map<string, DeviceSchema>();

/**
 * A device as its account sees it, for these providers: `transport` names those that name
 * themselves (`shownAs`).
 */
export function deviceSchema(providers: readonly PushProvider[]): DeviceSchema {
  const transports = [...new Set(providers.flatMap(({ registration }) => registration.shownAs ?? []))];
  const key = transports.join(' ');
  let schema = deviceSchemas.get(key);
  if (schema === undefined) {
    schema = makeDeviceSchema(transports);
    deviceSchemas.set(key, schema);
  }
  return schema;
}

/**
 * A device as its account sees it (management API). What only some devices have is shown only for
 * them, so a device registered with a push token reads as it always has: `device_id` for a device
 * that linked itself (the app's own id), `transport` for one whose provider names itself
 * (`"web_push"`), `inactive_reason` for one not active (where its rows tell why).
 */
export function deviceView(device: Device, seen: DeviceViewing): DeviceResponse {
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

const tokenMembers = {
  id: idOf('tok'),
  name: z.string(),
  kind: z.enum(['standard', 'agent']),
  own_status: z.boolean(),
  device_names: z.boolean(),
  scenes: z.array(z.string()).nullable(),
  allow_urls: z.boolean(),
  default_target: z.string().nullable(),
  expires_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
  created_at: timestamp,
};

/** A send token's options, without its secret. */
export const tokenSchema = z.object(tokenMembers).meta({ id: 'Token' });

/** A send token as it is made: its options and its secret, shown this once. */
export const newTokenSchema = z
  .object({ ...tokenMembers, token: z.string().meta({ description: 'The secret, shown this once.' }) })
  .meta({ id: 'NewToken' });

/** A token's options, without its secret. */
export function tokenView(token: SendToken): z.output<typeof tokenSchema> {
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

/** The spec's notification status record. */
export const statusRecordSchema = z
  .object({
    id: idOf('ntf'),
    status: z.enum(NOTIFICATION_STATUSES).meta({ description: 'The furthest state observed.' }),
    reason: z.enum(DROP_REASONS).optional().meta({ description: 'Only when status is dropped.' }),
    destinations: z.array(
      z.object({
        name: z.string().optional().meta({
          description:
            "The device's name, for a caller that may read device names (an account key, a send token with device_names).",
        }),
        platform: z.enum(PLATFORMS),
        state: z.enum(DESTINATION_STATES),
        push_status: z
          .int()
          .optional()
          .meta({ description: "The push service's response status, once it responded." }),
        reason: z.enum(PUSH_FAILURE_REASONS).optional().meta({
          description:
            'Why it will not arrive, once state is failed_permanent or expired. More reasons may come: show an unknown one as "could not be reached".',
        }),
        updated_at: timestamp,
      }),
    ),
    handled: z.array(
      z.object({ action: z.enum(HANDLED_ACTIONS), platform: z.enum(PLATFORMS), at: timestamp }),
    ),
  })
  .meta({ id: 'StatusRecord' });

/**
 * The status record of a stored notification. Device ids stay out: a send token does not see them.
 * Each destination names its device where the caller may read device names (an account key, a
 * send token with `device_names`), so two iPhones can be told apart.
 */
export function statusRecordView(
  stored: StoredNotification,
  { deviceNames }: { deviceNames: boolean },
): z.output<typeof statusRecordSchema> {
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

/**
 * The fields a stored notification carries only when its send gave them: the contract's optional
 * fields but `target` (the server stores the token's default, else auto), and `scene_version`
 * (absent only for a scene this copy of the catalog does not know).
 */
const GIVEN_ONLY = new Set<string>([...OPTIONAL_FIELDS.filter((name) => name !== 'target'), 'scene_version']);

/**
 * A message of the inbox: the notification as stored, every default applied, and how far it got.
 * Its fields are the send's, so a field the contract adds is shown here too (and one stored without
 * a value it must have fails loudly at serialization, rather than being left out).
 */
export const inboxItemSchema = z
  .object({
    id: idOf('ntf'),
    sender: z.string().meta({ description: "The sending token's name." }),
    ...Object.fromEntries(
      SEND_FIELD_NAMES.map((name) => {
        // As stored: the level it means, and the parameters as given.
        const schema =
          name === 'level'
            ? z.enum(LEVELS)
            : name === 'scene_params'
              ? z.record(z.string(), z.unknown())
              : SEND_FIELDS[name];
        return [name, GIVEN_ONLY.has(name) ? z.optional(schema) : schema];
      }),
    ),
    status: z.enum(NOTIFICATION_STATUSES),
    reason: z.enum(DROP_REASONS).optional(),
    created_at: timestamp,
    expires_at: timestamp,
  })
  .meta({ description: 'The notification as stored, every default applied, and how far it got.' });

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
