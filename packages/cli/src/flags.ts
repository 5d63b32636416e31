import type { Argv, Options } from 'yargs';

/**
 * The flags of `notify`, declared once: the parser, `--help` and shell completion read them
 * here. No handler code and no SDK here: this module is on the start-up path of every run.
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
} as const satisfies Record<string, Options>;

/** Send flags that carry one text field each, by flag name: the field they set. */
export const TEXT_FIELD_FLAGS = {
  title: 'title',
  subtitle: 'subtitle',
  scene: 'scene',
  'bell-color': 'bell_color',
  url: 'url',
  'url-title': 'url_title',
  image: 'image',
  level: 'level',
  group: 'group',
  tag: 'tag',
  sound: 'sound',
  target: 'target',
} as const;

/** Send flags whose text is read as an integer. */
export const INTEGER_FIELD_FLAGS = { 'scene-version': 'scene_version', ttl: 'ttl' } as const;

const FIELD_HELP: Record<keyof typeof TEXT_FIELD_FLAGS | keyof typeof INTEGER_FIELD_FLAGS, string> = {
  title: 'Bold first line (at most 250 bytes)',
  subtitle: 'Second line (at most 250 bytes)',
  scene: 'The animation: notice, rocket, fireworks, garage, campfire… (see `notify scenes`)',
  'scene-version': 'Pin a version of the scene',
  'bell-color': 'gold, red, blue, green or #RRGGBB',
  url: 'An https link offered as a button',
  'url-title': 'Title of the link button (with --url)',
  image: 'An https image to attach',
  level: 'passive, active, time-sensitive, or -2 to 2',
  group: 'Thread related notifications together',
  tag: 'A later send with the same tag replaces this one',
  sound: 'default or none',
  ttl: 'Seconds delivery may take at most (1 to 2592000)',
  target: 'auto, iphone, watch, vision, or a device name',
};

export const SEND_FLAGS = {
  ...Object.fromEntries(
    Object.keys(TEXT_FIELD_FLAGS).map((flag) => [
      flag,
      { type: 'string', describe: FIELD_HELP[flag as keyof typeof FIELD_HELP], group: 'Notification:' },
    ]),
  ),
  ...Object.fromEntries(
    Object.keys(INTEGER_FIELD_FLAGS).map((flag) => [
      flag,
      { type: 'string', describe: FIELD_HELP[flag as keyof typeof FIELD_HELP], group: 'Notification:' },
    ]),
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
    describe: 'Follow delivery until sent to push or dropped, up to N seconds (default 60)',
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
