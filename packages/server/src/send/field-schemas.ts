import {
  BELL_COLOR_NAMES,
  DEFAULT_SCENE,
  FIELD_DEFAULTS,
  LIMITS,
  SCENE_ID_PATTERN,
  SCENES,
  type SendFieldName,
  TAG_PATTERN,
  TARGET_KEYWORDS,
} from '@foxbell/sdk/contract';
import {
  BELL_HEX_PATTERN,
  FIELD_SCHEMAS,
  LEVEL_INPUTS,
  MESSAGE_ALIASES,
  SEND_FIELD_NAMES,
} from '@foxbell/sdk/server-contract';
import * as z from 'zod';

type JsonSchema = { [key: string]: unknown };

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
    // Any members: the scene version's own JSON Schema says which (GET /v1/scenes).
    additionalProperties: true,
    maxProperties: LIMITS.sceneParams.keys,
    'x-max-depth': LIMITS.sceneParams.depth,
    'x-max-bytes': LIMITS.sceneParams.bytes,
    description: "The scene's parameters, checked against the scene version's JSON Schema.",
  },
  bell_color: {
    type: 'string',
    // Each choice says its type, or generators read the pattern's as any value (`unknown`).
    anyOf: [
      { type: 'string', enum: [...BELL_COLOR_NAMES] },
      { type: 'string', pattern: BELL_HEX_PATTERN.source },
    ],
    default: FIELD_DEFAULTS.bell_color,
    description: "Colour of the fox's bell: a name, or #RRGGBB.",
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

/** A copy of a contract's schema that the document describes thus (the contract's stays as it is). */
function described(schema: z.core.$ZodType, rules: JsonSchema): z.core.$ZodType {
  const copy = z.core.util.clone(schema);
  z.globalRegistry.add(copy, rules);
  return copy;
}

/** Each send field: the contract's schema, with what the document says of it. */
export const SEND_FIELDS = Object.fromEntries(
  SEND_FIELD_NAMES.map((name) => [name, described(FIELD_SCHEMAS[name], SEND_FIELD_RULES[name])]),
) as { [Name in SendFieldName]: z.core.$ZodType };

/**
 * A send's body as the document gives it (the send routes read their bodies themselves, from
 * JSON, a form, text and headers alike: prepare.ts). Every field is optional in the schema, since
 * `message` may come under an alias; a field with a default need not be sent.
 */
export const sendBody = z
  .object({
    ...Object.fromEntries(SEND_FIELD_NAMES.map((name) => [name, z.optional(SEND_FIELDS[name])])),
    ...Object.fromEntries(
      MESSAGE_ALIASES.slice(1).map((alias) => [
        alias,
        z.optional(
          described(FIELD_SCHEMAS.message, { ...SEND_FIELD_RULES.message, description: 'Alias of message.' }),
        ),
      ]),
    ),
  })
  .meta({
    description:
      'Every field but message is optional. version, type and attachments are ignored in a JSON or form body; any other field is invalid_field.',
  });
