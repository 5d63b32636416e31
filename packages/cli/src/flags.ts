import type { SendFieldName } from '@foxbell/sdk/contract';
import {
  BELL_COLOR_NAMES,
  FIELD_DEFAULTS,
  LEVELS,
  LIMITS,
  SOUNDS,
  TARGET_KEYWORDS,
} from '@foxbell/sdk/contract/values';
import type { Argv, Options } from 'yargs';

/**
 * The flags of `notify`, declared once: the parser, `--help` and shell completion read them
 * here. No handler code and no SDK here: this module is on the start-up path of every run, so
 * its numbers and names come from the contract's values, which load no rules.
 */

/** Flags every command takes. */
export const GLOBAL_FLAGS = {
  profile: { type: 'string', describe: 'The config-file profile to use (NOTIFY_PROFILE; default "default")' },
  token: {
    type: 'string',
    describe: 'Send token (prefer NOTIFY_TOKEN or `notify login`: a flag may land in shell history)',
  },
  'base-url': { type: 'string', describe: 'Service address (NOTIFY_BASE_URL)' },
  json: { type: 'boolean', describe: 'Print the result as one JSON document on stdout' },
  quiet: {
    type: 'boolean',
    alias: 'q',
    describe: 'Print only the id (or nothing); errors still go to stderr',
  },
  retries: {
    type: 'number',
    describe: 'Retries after a failed attempt, 0 to 3, as the service allows (default 3)',
  },
  verbose: {
    type: 'boolean',
    describe:
      'Trace each request on stderr: method, address, status, request id, time, retries (NOTIFY_DEBUG=1)',
  },
} as const satisfies Record<string, Options>;

/** How a send field reaches `notify`: a flag of its own (its text, or its text read as an integer), or another way. */
type FieldInput = { from: 'text' | 'integer'; flag: string; help: string } | { from: 'arguments' | 'params' };

/**
 * Every send field of the contract and how the command line gives it. Typed over the contract's
 * field names (a type-only import: nothing of the SDK loads here), so a field added there does not
 * compile until it has its way in here.
 */
const FIELD_INPUTS = {
  message: { from: 'arguments' },
  title: { from: 'text', flag: 'title', help: `Bold first line (at most ${LIMITS.titleBytes} bytes)` },
  subtitle: { from: 'text', flag: 'subtitle', help: `Second line (at most ${LIMITS.subtitleBytes} bytes)` },
  scene: {
    from: 'text',
    flag: 'scene',
    help: `The animation (see \`notify scenes\`; default ${FIELD_DEFAULTS.scene})`,
  },
  scene_version: { from: 'integer', flag: 'scene-version', help: 'Pin a version of the scene' },
  scene_params: { from: 'params' },
  bell_color: {
    from: 'text',
    flag: 'bell-color',
    help: `${BELL_COLOR_NAMES.join(', ')} or #RRGGBB (default ${FIELD_DEFAULTS.bell_color})`,
  },
  url: { from: 'text', flag: 'url', help: 'An https link offered as a button' },
  url_title: { from: 'text', flag: 'url-title', help: 'Title of the link button (with --url)' },
  image: { from: 'text', flag: 'image', help: 'An https image to attach' },
  level: {
    from: 'text',
    flag: 'level',
    help: `${LEVELS.join(', ')}, or -2 to 2 (default ${FIELD_DEFAULTS.level})`,
  },
  group: { from: 'text', flag: 'group', help: 'Thread related notifications together' },
  tag: { from: 'text', flag: 'tag', help: 'A later send with the same tag replaces this one' },
  sound: {
    from: 'text',
    flag: 'sound',
    help: `${SOUNDS.join(' or ')}; ${FIELD_DEFAULTS.sound} unless given`,
  },
  ttl: {
    from: 'integer',
    flag: 'ttl',
    help: `Seconds delivery may take at most, ${LIMITS.ttlSeconds.min} to ${LIMITS.ttlSeconds.max} (default ${FIELD_DEFAULTS.ttl})`,
  },
  target: {
    from: 'text',
    flag: 'target',
    help: `${TARGET_KEYWORDS.join(', ')}, or a device name (default the token's, else ${FIELD_DEFAULTS.target})`,
  },
} as const satisfies { [Field in SendFieldName]-?: FieldInput };

type FieldFlag = { field: SendFieldName; flag: string; help: string };

/** The send fields with a flag of their own, in the contract's order; `integer` ones are read as integers. */
export const FIELD_FLAGS: readonly (FieldFlag & { integer: boolean })[] = Object.entries(
  FIELD_INPUTS,
).flatMap(([field, input]: [string, FieldInput]) =>
  'flag' in input
    ? [
        {
          field: field as SendFieldName,
          flag: input.flag,
          help: input.help,
          integer: input.from === 'integer',
        },
      ]
    : [],
);

export const SEND_FLAGS = {
  ...Object.fromEntries(
    FIELD_FLAGS.map(({ flag, help }) => [flag, { type: 'string', describe: help, group: 'Notification:' }]),
  ),
  param: {
    type: 'string',
    array: true,
    describe: 'A scene parameter as name=value, typed by the scene (repeatable)',
    group: 'Notification:',
  },
  'idempotency-key': {
    type: 'string',
    describe: 'Makes a repeated send notify once (default: a new key per run)',
    group: 'Sending:',
  },
  wait: {
    type: 'string',
    describe:
      'Follow delivery to the devices, up to N seconds (default 60); exit 7 at once if it will not arrive',
    group: 'Sending:',
  },
  'dry-run': {
    type: 'boolean',
    describe: 'Check the notification and show the request (token redacted); send nothing',
    group: 'Sending:',
  },
  'fail-open': {
    type: 'boolean',
    describe: 'If the notification cannot be sent, warn and exit 0',
    group: 'Sending:',
  },
} as const satisfies Record<string, Options>;

/**
 * Send flags a CI setup sets once: each also reads `NOTIFY_<FLAG>` (NOTIFY_SCENE, NOTIFY_BELL_COLOR…)
 * and the profile's key of the same name (`notify config set scene rocket --profile ci`).
 * A flag wins over the variable, the variable over the profile, the profile over the default.
 */
export const DEFAULTABLE_FLAGS = ['scene', 'level', 'target', 'group', 'ttl', 'sound', 'bell-color'] as const;
export type DefaultableFlag = (typeof DEFAULTABLE_FLAGS)[number];

/** The variable of a defaultable flag: `bell-color` is NOTIFY_BELL_COLOR. */
export const variableOf = (flag: DefaultableFlag) => `NOTIFY_${flag.toUpperCase().replace('-', '_')}`;

/** The keys `notify config` takes. */
export const CONFIG_KEY_NAMES = ['base-url', 'token', ...DEFAULTABLE_FLAGS] as const;

/** What the parser hands a command that sends. */
export interface SendArgs extends GlobalArgs {
  [flag: string]: unknown;
  param?: string[];
  'idempotency-key'?: string;
  wait?: string;
  'dry-run'?: boolean;
  'fail-open'?: boolean;
}

export interface GlobalArgs {
  profile?: string;
  token?: string;
  'base-url'?: string;
  json?: boolean;
  quiet?: boolean;
  retries?: number;
  verbose?: boolean;
}

export function withSendFlags(yargs: Argv): Argv {
  return yargs.options(SEND_FLAGS as Record<string, Options>);
}

/**
 * `--wait` takes an optional number of seconds. A parser cannot tell `--wait 30` from
 * `--wait Deploy done` by itself, so a `--wait` not followed by a number is given an empty
 * value here, before parsing, and the words after it stay the message.
 */
export function normalizeWaitFlag(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (arg === '--wait' && !/^\d+(\.\d+)?$/.test(argv[i + 1] ?? '')) out.push('--wait=');
    else out.push(arg);
  }
  return out;
}
