import { inactiveInWords, seenInWords } from '@foxbell/sdk/contract';
import { type LinkApprovalError, linkApprovalInWords } from '@foxbell/sdk/server-contract';
import { PROVIDERS } from '../../delivery/providers.js';
import type { Setting } from '../../kernel/settings.js';
import { tokenEnded } from '../../model/tokens.js';

/** The values read for a command's settings, by key: text, a number, or a switch. */
export type OptionValues = Record<string, string | number | boolean | undefined>;

/** One `foxbell-server admin` command: the management API call it makes, and how it shows the response. */
export interface AdminCommand {
  /** `account create`, `pause`… */
  name: string;
  summary: string;
  /** Whose key the route takes. */
  credential: 'admin' | 'account';
  method: 'GET' | 'POST' | 'DELETE';
  /** The path, given the command's ID argument when it takes one. */
  path: (id: string) => string;
  /** The name of its one positional argument, when it takes one. */
  takesId?: string;
  /** Its own settings, keyed by flag, read and checked like every other setting. */
  options?: Record<string, Setting>;
  /** The JSON body, from the options (and the ID argument); a string is a usage mistake. */
  body?: (values: OptionValues, id: string) => Record<string, unknown> | string;
  /** The response for a person: lines on stdout. */
  show: (body: ResponseBody, id: string) => string[];
  /** Its own words for an error the API responded, where a person reads them rather than the API's. */
  inWords?: (error: LinkApprovalError) => string | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: responses are read field by field, as the API documents them.
type ResponseBody = any;

const SHOWN_ONCE = '(shown once: keep it now)';

/** A list as aligned columns, with a header. */
export function table(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** A listed token's state, decided as the service decides it (from the response's ISO times). */
const tokenState = (token: ResponseBody) => {
  const time = (iso: string | null) => (iso ? Date.parse(iso) : null);
  const ended = tokenEnded(
    { revokedAt: time(token.revoked_at), expiresAt: time(token.expires_at) },
    Date.now(),
  );
  return ended === 'token_revoked' ? 'revoked' : ended === 'token_expired' ? 'expired' : 'live';
};

/** A listed device's state in a word or two: active, or why it is not. */
const deviceState = (device: ResponseBody): string =>
  device.active ? 'active' : (device.inactive_reason?.replaceAll('_', ' ') ?? 'inactive');

/**
 * Why each device that did not leave by a person's hand is inactive, and what to do, after a blank
 * line; nothing when there is none.
 */
function inactiveInWordsOf(devices: ResponseBody[]): string[] {
  const lines = devices
    .filter((device) => !device.active && device.inactive_reason !== 'removed')
    .map((device) => {
      const { what, advice } = inactiveInWords(device.inactive_reason);
      return `${device.name} (${device.id}): ${what}; ${advice}`;
    });
  return lines.length === 0 ? [] : ['', ...lines];
}

const PROVIDER_ENTRIES = Object.values(PROVIDERS);

/** The providers a device can be added by here: those whose member is one text, by its flag. */
const TEXT_MEMBERS = PROVIDER_ENTRIES.flatMap(({ member, memberText }) =>
  memberText ? [{ member, flag: member.replaceAll('_', '-'), ...memberText }] : [],
);

/** The provider a listed device is reached through, by the `transport` it shows (none for some). */
function reachedThrough(transport: string | undefined): string {
  const titles = PROVIDER_ENTRIES.filter((entry) => entry.shownAs === transport).map((entry) => entry.title);
  return titles.length > 0 ? titles.join(' or ') : String(transport);
}

export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'account create',
    summary: 'make an account; prints its key once',
    credential: 'admin',
    method: 'POST',
    path: () => '/v1/accounts',
    options: { name: { flag: 'name', type: 'text', argument: 'N', help: 'a name for it' } },
    body: (values) => (values.name === undefined ? {} : { name: values.name }),
    show: (body) => [
      `account ${body.id} created`,
      `  key:        ${body.key} ${SHOWN_ONCE}`,
      `  generation: ${body.generation}`,
    ],
  },
  {
    name: 'account delete',
    summary: 'delete the account of --account-key, with its devices and tokens',
    credential: 'account',
    method: 'DELETE',
    path: () => '/v1/account',
    show: () => ['account deleted'],
  },
  {
    name: 'account merge',
    summary: 'merge the account of --merge-key into the one of --account-key, which survives',
    credential: 'account',
    method: 'POST',
    path: () => '/v1/account/merge',
    options: {
      'merge-key': {
        flag: 'merge-key',
        variable: 'FOXBELL_MERGE_ACCOUNT_KEY',
        argument: 'KEY',
        type: 'text',
        secret: true,
        help: 'the key of the account merged in (or --merge-key-file)',
      },
    },
    body: (values) =>
      values['merge-key'] === undefined
        ? 'account merge needs --merge-key-file (or --merge-key, or FOXBELL_MERGE_ACCOUNT_KEY)'
        : { account_key: values['merge-key'] },
    show: (body) => [
      `merged into account ${body.canonical_account_id}`,
      `  group: ${body.accounts.join(', ')}`,
    ],
  },
  {
    name: 'account rotate-key',
    summary: 'replace the account key; prints the new one once',
    credential: 'account',
    method: 'POST',
    path: () => '/v1/account/key',
    options: {
      generation: {
        flag: 'generation',
        type: 'integer',
        min: 1,
        max: Number.MAX_SAFE_INTEGER,
        argument: 'G',
        help: 'only if the key is still this generation',
      },
    },
    body: (values) => (values.generation === undefined ? {} : { generation: values.generation }),
    show: (body) => [
      'account key replaced',
      `  key:        ${body.key} ${SHOWN_ONCE}`,
      `  generation: ${body.generation}`,
    ],
  },
  {
    name: 'token create',
    summary: 'make a send token; prints it once',
    credential: 'account',
    method: 'POST',
    path: () => '/v1/tokens',
    options: {
      name: {
        flag: 'name',
        type: 'text',
        argument: 'N',
        help: 'the sender name shown with each notification',
      },
      kind: { flag: 'kind', type: 'text', argument: 'K', help: 'standard (default) or agent' },
      scenes: { flag: 'scenes', type: 'text', argument: 'A,B', help: 'the only scenes it may send' },
      'allow-urls': {
        flag: 'allow-urls',
        type: 'switch',
        help: 'may send links (agents may not by default)',
      },
      'no-own-status': {
        flag: 'no-own-status',
        type: 'switch',
        help: 'may not read the status of its sends',
      },
      'no-device-names': { flag: 'no-device-names', type: 'switch', help: 'may not list device names' },
      'default-target': {
        flag: 'default-target',
        type: 'text',
        argument: 'T',
        help: 'where its sends go when they name no target',
      },
      'expires-at': {
        flag: 'expires-at',
        type: 'text',
        argument: 'TS',
        help: 'when it stops working (YYYY-MM-DDTHH:MM:SS.mmmZ)',
      },
    },
    body: (values) => ({
      ...(values.name === undefined ? {} : { name: values.name }),
      ...(values.kind === undefined ? {} : { kind: values.kind }),
      ...(typeof values.scenes === 'string'
        ? { scenes: values.scenes.split(',').map((scene) => scene.trim()) }
        : {}),
      ...(values['allow-urls'] ? { allow_urls: true } : {}),
      ...(values['no-own-status'] ? { own_status: false } : {}),
      ...(values['no-device-names'] ? { device_names: false } : {}),
      ...(values['default-target'] === undefined ? {} : { default_target: values['default-target'] }),
      ...(values['expires-at'] === undefined ? {} : { expires_at: values['expires-at'] }),
    }),
    show: (body) => [
      `token ${body.id} created`,
      `  token: ${body.token} ${SHOWN_ONCE}`,
      `  name:  ${body.name}`,
      `  kind:  ${body.kind}`,
      ...(body.scenes ? [`  scenes: ${body.scenes.join(', ')}`] : []),
      ...(body.expires_at ? [`  expires: ${body.expires_at}`] : []),
    ],
  },
  {
    name: 'token list',
    summary: "the account's tokens (never their secrets)",
    credential: 'account',
    method: 'GET',
    path: () => '/v1/tokens',
    show: (body) =>
      body.tokens.length === 0
        ? ['no tokens']
        : table(
            ['ID', 'NAME', 'KIND', 'STATE', 'CREATED'],
            body.tokens.map((token: ResponseBody) => [
              token.id,
              token.name,
              token.kind,
              tokenState(token),
              token.created_at,
            ]),
          ),
  },
  {
    name: 'token revoke',
    summary: 'revoke a token at once; what it queued and is not yet routed is dropped',
    credential: 'account',
    method: 'DELETE',
    takesId: 'ID',
    path: (id) => `/v1/tokens/${encodeURIComponent(id)}`,
    show: (_answer, id) => [`token ${id} revoked`],
  },
  {
    name: 'device add',
    summary: `register a device by ${TEXT_MEMBERS.map((one) => one.help).join(' or ')}`,
    credential: 'account',
    method: 'POST',
    path: () => '/v1/devices',
    options: {
      name: { flag: 'name', type: 'text', argument: 'N', help: 'its name, as sends target it' },
      platform: { flag: 'platform', type: 'text', argument: 'P', help: 'ios, watchos or visionos' },
      ...Object.fromEntries(
        TEXT_MEMBERS.map(({ flag, argument, help }) => [flag, { flag, type: 'text', argument, help }]),
      ),
    },
    body: (values) => {
      const given = TEXT_MEMBERS.filter((one) => values[one.flag] !== undefined);
      const missing = [
        ...['name', 'platform'].filter((name) => values[name] === undefined).map((name) => `--${name}`),
        ...(given.length > 0 ? [] : [TEXT_MEMBERS.map((one) => `--${one.flag}`).join(' or ')]),
      ];
      if (missing.length > 0) return `device add needs ${missing.join(', ')}`;
      return {
        name: values.name,
        platform: values.platform,
        ...Object.fromEntries(given.map((one) => [one.member, values[one.flag]])),
      };
    },
    show: (body) => [`device ${body.id} added`, `  name:     ${body.name}`, `  platform: ${body.platform}`],
  },
  {
    name: 'link approve',
    summary: 'link a device to the account of --account-key by the code it shows (XXXX-XXXX)',
    credential: 'account',
    method: 'POST',
    path: () => '/v1/link-approvals',
    takesId: 'CODE',
    body: (_values, code) => ({ code }),
    // A code that does not work is said as the web app says it, where a person approves one too.
    inWords: linkApprovalInWords,
    show: (body) => [
      `device ${body.device.id} linked`,
      `  name:     ${body.device.name}`,
      `  platform: ${body.device.platform}`,
      ...(body.device.transport === undefined
        ? []
        : [`  through:  ${reachedThrough(body.device.transport)}`]),
    ],
  },
  {
    name: 'device list',
    summary: "the account's devices",
    credential: 'account',
    method: 'GET',
    path: () => '/v1/devices',
    show: (body) =>
      body.devices.length === 0
        ? ['no devices']
        : [
            ...table(
              ['ID', 'NAME', 'PLATFORM', 'THROUGH', 'IN AUTO', 'STATE', 'SEEN'],
              body.devices.map((device: ResponseBody) => [
                device.id,
                device.name,
                device.platform,
                reachedThrough(device.transport),
                device.in_auto ? 'yes' : 'no',
                deviceState(device),
                seenInWords(device, Date.now()),
              ]),
            ),
            ...inactiveInWordsOf(body.devices),
          ],
  },
  {
    name: 'device remove',
    summary: 'remove a device; what still waits for it is skipped',
    credential: 'account',
    method: 'DELETE',
    takesId: 'ID',
    path: (id) => `/v1/devices/${encodeURIComponent(id)}`,
    show: (_answer, id) => [`device ${id} removed`],
  },
  {
    name: 'pause',
    summary: 'reject sends with 503 and Retry-After, for every account',
    credential: 'admin',
    method: 'POST',
    path: () => '/v1/admin/pause',
    options: {
      'retry-after': {
        flag: 'retry-after',
        type: 'integer',
        min: 1,
        max: 3600,
        argument: 'S',
        defaultText: '30',
        help: 'the Retry-After clients get, 1 to 3600',
      },
    },
    body: (values) =>
      values['retry-after'] === undefined
        ? { paused: true }
        : { paused: true, retry_after: values['retry-after'] },
    show: (body) => [`sends paused; clients are told to retry after ${body.retry_after} s`],
  },
  {
    name: 'resume',
    summary: 'take sends again',
    credential: 'admin',
    method: 'POST',
    path: () => '/v1/admin/pause',
    body: () => ({ paused: false }),
    show: () => ['sends resumed'],
  },
];
