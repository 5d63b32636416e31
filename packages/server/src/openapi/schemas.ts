import {
  BELL_COLOR_NAMES,
  DEFAULT_SCENE,
  DESTINATION_STATES,
  DROP_REASONS,
  ERROR_CODES,
  FIELD_DEFAULTS,
  INACTIVE_REASONS,
  LIMITS,
  NOTIFICATION_STATUSES,
  PLATFORMS,
  PUSH_FAILURE_REASONS,
  SCENE_ID_PATTERN,
  SCENES,
  type SendFieldName,
  TAG_PATTERN,
  TARGET_KEYWORDS,
} from '@foxbell/sdk/contract';
import {
  BELL_HEX_PATTERN,
  FIELD_SCHEMAS,
  HANDLED_ACTIONS,
  LEVEL_INPUTS,
  MESSAGE_ALIASES,
  SEND_FIELD_NAMES,
} from '@foxbell/sdk/server-contract';
import * as z from 'zod';
import type { PushProvider } from '../delivery/provider.js';
import { keyRotation, newAccount } from '../http/routes/accounts.js';
import { pauseBody } from '../http/routes/admin.js';
import { deviceChange, newDevice } from '../http/routes/devices.js';
import { eventBody } from '../http/routes/notifications.js';
import { newToken } from '../http/routes/tokens.js';
import type { JsonSchema } from '../kernel/route-doc.js';
import { linkApproval, newLinkRequest } from '../linking/link-routes.js';
import { accountMerge } from '../linking/merge-routes.js';
import { ownDeviceChange } from '../linking/own-device-routes.js';
import {
  pushStatesDescription,
  staleDescription,
  transportDescription,
  transportsShown,
} from './providers.js';

/** A JSON Schema (2020-12, as OpenAPI 3.1 takes it). */

/** The JSON Schema of a zod schema as a request gives it (defaults optional), without `$schema`. */
export function fromZod(schema: z.core.$ZodType): JsonSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return json;
}

/** Text of at most `max` UTF-8 bytes; maxLength counts characters, each at least a byte. */
const text = (max: number, min = 0): JsonSchema => ({
  type: 'string',
  ...(min > 0 ? { minLength: min } : {}),
  maxLength: max,
  'x-max-bytes': max,
});

const https = (): JsonSchema => ({ ...text(LIMITS.urlBytes), format: 'uri', pattern: '^https://' });

const levelTexts = Object.keys(LEVEL_INPUTS);
const numericLevels = levelTexts
  .filter((input) => /^-?\d$/.test(input))
  .sort((a, b) => Number(a) - Number(b));
const namedLevels = levelTexts.filter((input) => !numericLevels.includes(input));

/**
 * What JSON Schema can say of each send field beyond its type: the byte limits, patterns and
 * choices the contract's checks enforce, taken from the contract's own constants. Typed over the
 * field names, so a field added to the contract does not compile until it is described here.
 */
const SEND_FIELD_RULES: { [Name in SendFieldName]: JsonSchema } = {
  message: {
    ...text(LIMITS.messageBytes.max, LIMITS.messageBytes.min),
    description: `The text. Required; aliases ${MESSAGE_ALIASES.slice(1).join(', ')} (give one).`,
  },
  title: {
    ...text(LIMITS.titleBytes),
    description: "Bold first line (without it the app shows the scene's name).",
  },
  subtitle: { ...text(LIMITS.subtitleBytes), description: 'Second line.' },
  scene: {
    type: 'string',
    pattern: SCENE_ID_PATTERN.source,
    default: DEFAULT_SCENE,
    examples: Object.keys(SCENES),
    description: 'The animation: a scene id of the catalog (GET /v1/scenes).',
  },
  scene_version: { description: "Pins a version of the scene; without it, the scene's current version." },
  scene_params: {
    type: 'object',
    maxProperties: LIMITS.sceneParams.keys,
    'x-max-depth': LIMITS.sceneParams.depth,
    'x-max-bytes': LIMITS.sceneParams.bytes,
    description: "The scene's parameters, checked against the scene version's JSON Schema.",
  },
  bell_color: {
    anyOf: [{ enum: [...BELL_COLOR_NAMES] }, { pattern: BELL_HEX_PATTERN.source }],
    default: FIELD_DEFAULTS.bell_color,
    description: "Colour of the fox's bell.",
  },
  url: { ...https(), description: 'A link offered as a button of its own; never opened by the tap.' },
  url_title: { ...text(LIMITS.shortTextBytes, 1), description: 'Title of the link button; only with url.' },
  image: { ...https(), description: 'An image to attach.' },
  level: {
    anyOf: [
      { type: 'string', enum: [...namedLevels, ...numericLevels] },
      { type: 'integer', enum: numericLevels.map(Number) },
    ],
    default: FIELD_DEFAULTS.level,
    description: 'Interruption level: passive (-2, -1), active (0) or time-sensitive (1, 2).',
  },
  group: { ...text(LIMITS.shortTextBytes, 1), description: 'Threads related notifications together.' },
  tag: {
    type: 'string',
    pattern: TAG_PATTERN.source,
    description: 'A newer send with the same tag replaces this one on the devices it reaches.',
  },
  sound: { default: FIELD_DEFAULTS.sound, description: 'Whether a sound plays.' },
  ttl: { default: FIELD_DEFAULTS.ttl, description: 'Seconds delivery may take at most.' },
  target: {
    ...text(LIMITS.shortTextBytes, 1),
    examples: [...TARGET_KEYWORDS],
    description:
      "Which devices: auto, iphone, watch, vision, a device name or id; default the token's, else auto.",
  },
};

const sendFields: Record<string, JsonSchema> = Object.fromEntries(
  SEND_FIELD_NAMES.map((name) => [name, { ...fromZod(FIELD_SCHEMAS[name]), ...SEND_FIELD_RULES[name] }]),
);

const timestamp: JsonSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
};
const id = (prefix: string): JsonSchema => ({ type: 'string', pattern: `^${prefix}_[A-Za-z0-9_-]+$` });
const object = (properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
});
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const orNull = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });

const device = (providers: readonly PushProvider[]) =>
  object(
    {
      id: id('dev'),
      name: { type: 'string' },
      platform: { enum: [...PLATFORMS] },
      device_id: { type: 'string', description: "A device that linked itself: the app's own id for itself." },
      transport: { enum: transportsShown(providers), description: transportDescription(providers) },
      in_auto: { type: 'boolean' },
      active: { type: 'boolean' },
      inactive_reason: {
        enum: [...INACTIVE_REASONS],
        description:
          'Only while active is false: its push service said its address is gone (subscription_gone, unregistered), a person removed it (removed), or another account registered it (moved). Absent where the server cannot tell (a device made inactive before it kept this).',
      },
      created_at: timestamp,
      last_seen_at: {
        ...orNull(timestamp),
        description:
          'When its device key was last used (to the minute); null for a device with no key, or unused.',
      },
      stale: {
        type: 'boolean',
        description: staleDescription(providers),
      },
    },
    ['device_id', 'transport', 'inactive_reason'],
  );

const tokenOptions = {
  id: id('tok'),
  name: { type: 'string' },
  kind: { enum: ['standard', 'agent'] },
  own_status: { type: 'boolean' },
  device_names: { type: 'boolean' },
  scenes: orNull({ type: 'array', items: { type: 'string' } }),
  allow_urls: { type: 'boolean' },
  default_target: orNull({ type: 'string' }),
  expires_at: orNull(timestamp),
  revoked_at: orNull(timestamp),
  created_at: timestamp,
};

/** Every named schema of the document: the send's, the records', the management API's. */
/** The components' schemas; the registration bodies have a member for each provider. */
export function schemasFor(providers: readonly PushProvider[]): Record<string, JsonSchema> {
  return {
    SendFields: {
      type: 'object',
      properties: {
        ...sendFields,
        ...Object.fromEntries(
          MESSAGE_ALIASES.slice(1).map((alias) => [
            alias,
            { ...sendFields.message, description: 'Alias of message.' },
          ]),
        ),
      },
      description:
        'Every field but message is optional. version, type and attachments are ignored in a JSON or form body; any other field is invalid_field.',
    },
    SendResponse: object({ id: id('ntf'), status: { const: 'accepted' }, request_id: id('req') }),
    StatusRecord: object(
      {
        id: id('ntf'),
        status: { enum: [...NOTIFICATION_STATUSES], description: 'The furthest state observed.' },
        reason: { enum: [...DROP_REASONS], description: 'Only when status is dropped.' },
        destinations: {
          type: 'array',
          items: object(
            {
              name: {
                type: 'string',
                description:
                  "The device's name, for a caller that may read device names (an account key, a send token with device_names).",
              },
              platform: { enum: [...PLATFORMS] },
              state: { enum: [...DESTINATION_STATES] },
              push_status: { type: 'integer', description: "The push service's answer, once it answered." },
              reason: {
                enum: [...PUSH_FAILURE_REASONS],
                description:
                  'Why it will not arrive, once state is failed_permanent or expired. More reasons may come: show an unknown one as "could not be reached".',
              },
              updated_at: timestamp,
            },
            ['name', 'push_status', 'reason'],
          ),
        },
        handled: {
          type: 'array',
          items: object({
            action: { enum: [...HANDLED_ACTIONS] },
            platform: { enum: [...PLATFORMS] },
            at: timestamp,
          }),
        },
      },
      ['reason'],
    ),
    Catalog: object({
      scenes: {
        type: 'array',
        items: object({
          id: { type: 'string', pattern: SCENE_ID_PATTERN.source },
          name: { type: 'string' },
          current_version: { type: 'integer' },
          versions: {
            type: 'array',
            items: object({
              version: { type: 'integer' },
              params: {
                type: 'object',
                description: "The version's parameters, as a JSON Schema (2020-12).",
              },
            }),
          },
        }),
      },
    }),
    DeviceNames: object({
      devices: {
        type: 'array',
        items: object({ name: { type: 'string' }, platform: { enum: [...PLATFORMS] } }),
      },
    }),
    Device: device(providers),
    WebPushKey: object({ public_key: { type: 'string', pattern: '^[A-Za-z0-9_-]{87}$' } }),
    Devices: object({ devices: { type: 'array', items: ref('Device') } }),
    Token: object(tokenOptions),
    NewToken: object({
      ...tokenOptions,
      token: { type: 'string', description: 'The secret, shown this once.' },
    }),
    Tokens: object({ tokens: { type: 'array', items: ref('Token') } }),
    NewAccount: object({ id: id('acct'), key: { type: 'string' }, generation: { type: 'integer' } }),
    RotatedKey: object({ key: { type: 'string' }, generation: { type: 'integer' } }),
    Inbox: object({
      items: {
        type: 'array',
        items: {
          ...object(
            {
              id: id('ntf'),
              sender: { type: 'string', description: "The sending token's name." },
              ...sendFields,
              status: { enum: [...NOTIFICATION_STATUSES] },
              reason: { enum: [...DROP_REASONS] },
              created_at: timestamp,
              expires_at: timestamp,
            },
            // What a send left out stays out; the defaults are filled in.
            ['reason', 'title', 'subtitle', 'url', 'url_title', 'image', 'group', 'tag', 'scene_version'],
          ),
          description: 'The notification as stored, every default applied, and how far it got.',
        },
      },
      next_cursor: orNull({ type: 'string' }),
    }),
    Pause: object({ paused: { type: 'boolean' }, retry_after: { type: 'integer' } }),
    Health: object({ status: { const: 'ok' } }),
    Readiness: object(
      {
        status: { enum: ['ok', 'unavailable'] },
        checks: object({
          database: { enum: ['ok', 'migrations_pending', 'unreachable'] },
          writes: { enum: ['ok', 'read_only', 'unknown'] },
          shutdown: { enum: ['ok', 'stopping'] },
        }),
        sends: { enum: ['open', 'paused', 'unknown'] },
        push: {
          type: 'object',
          description: pushStatesDescription(providers),
          additionalProperties: { enum: ['ok', 'refused', 'simulator'] },
        },
      },
      ['push'],
    ),
    Error: object({
      error: object(
        {
          code: { enum: Object.keys(ERROR_CODES), description: 'Stable: match on it.' },
          message: { type: 'string', description: 'For a person; may change.' },
          field: { type: 'string' },
          details: { type: 'object' },
        },
        ['field', 'details'],
      ),
      request_id: id('req'),
    }),
    NewAccountBody: fromZod(newAccount),
    KeyRotationBody: fromZod(keyRotation),
    NewDeviceBody: fromZod(newDevice(providers)),
    DeviceChangeBody: fromZod(deviceChange),
    NewTokenBody: fromZod(newToken),
    EventBody: fromZod(eventBody),
    NewLinkRequestBody: fromZod(newLinkRequest(providers)),
    LinkApprovalBody: fromZod(linkApproval),
    OwnDeviceChangeBody: fromZod(ownDeviceChange(providers)),
    NewLinkRequest: object({
      id: id('lnk'),
      code: { type: 'string', pattern: '^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$' },
      secret: { type: 'string', pattern: '^fox_poll_[A-Za-z0-9]{32}$' },
      expires_at: timestamp,
    }),
    LinkRequest: object(
      {
        state: { enum: ['pending', 'approved', 'cancelled', 'expired', 'superseded'] },
        expires_at: timestamp,
        device: ref('Device'),
        device_key: { type: 'string', pattern: '^fox_dev_[A-Za-z0-9]{32}$' },
        account_id: id('acct'),
      },
      ['device', 'device_key', 'account_id'],
    ),
    LinkApproval: object({ device: ref('Device') }),
    AccountMergeBody: fromZod(accountMerge),
    AccountMerge: object({
      canonical_account_id: id('acct'),
      accounts: { type: 'array', items: id('acct'), minItems: 2, maxItems: 5 },
    }),
    PauseBody: fromZod(pauseBody),
  };
}
