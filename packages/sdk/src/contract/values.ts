/**
 * `@foxbell/sdk/contract/values`: the numbers, names and defaults of the send fields, with no zod
 * and no code: what a help text or a document shows, for programs whose start-up must not load
 * the rules themselves (notify's flags). The rules (`fields.ts`) read their numbers here too.
 */

/**
 * A send's `ttl` when it gives none. A constant of its own, not read from LIMITS by FIELD_DEFAULTS:
 * reading a member keeps FIELD_DEFAULTS in an app's bundle of the SDK, which never uses it.
 */
const DEFAULT_TTL_SECONDS = 86_400;

/** Every number the send rules use, in one place. Byte limits are UTF-8 bytes. */
export const LIMITS = {
  requestBytes: 16_384,
  messageBytes: { min: 1, max: 4_000 },
  titleBytes: 250,
  subtitleBytes: 250,
  urlBytes: 2_048,
  shortTextBytes: 64,
  ttlSeconds: { min: 1, max: 2_592_000, default: DEFAULT_TTL_SECONDS },
  sceneParams: { keys: 20, depth: 2, bytes: 2_048 },
  idempotencyKeyChars: 255,
} as const;

export const LEVELS = ['passive', 'active', 'time-sensitive'] as const;
export type Level = (typeof LEVELS)[number];

export const BELL_COLOR_NAMES = ['gold', 'red', 'blue', 'green'] as const;
export const TARGET_KEYWORDS = ['auto', 'iphone', 'watch', 'vision'] as const;
export const SOUNDS = ['default', 'none'] as const;

/** What a send that leaves a field out gets: the spec's defaults, applied by the service. */
export const FIELD_DEFAULTS = {
  scene: 'notice',
  bell_color: 'gold',
  level: 'active',
  sound: 'default',
  ttl: DEFAULT_TTL_SECONDS,
  target: 'auto',
} as const satisfies {
  bell_color: (typeof BELL_COLOR_NAMES)[number];
  level: Level;
  sound: (typeof SOUNDS)[number];
  target: (typeof TARGET_KEYWORDS)[number];
  [field: string]: unknown;
};

/** The spec's limits on sends and on an account's size (a server's operator may change them). */
export const SERVICE_LIMITS = {
  sendsPerTokenPerMinute: 30,
  sendsPerAccountPerMinute: 60,
  sendsPerAccountPerMonth: 10_000,
  devicesPerAccount: 20,
  tokensPerAccount: 50,
} as const;
