import { keyCharacterProblem, SERVER_SETTINGS } from '../../config/server-settings.js';
import type { Setting } from '../../kernel/settings.js';

/**
 * The settings of every `foxbell-server admin` command, read like the server's own (the flag,
 * else the variable, else the default; keys also from files). The admin key is the server's row:
 * one flag, one variable, one rule for both sides.
 */
export const ADMIN_SETTINGS = {
  'base-url': {
    flag: 'base-url',
    variable: 'FOXBELL_BASE_URL',
    argument: 'URL',
    type: 'text',
    default: `http://127.0.0.1:${SERVER_SETTINGS.port.default}`,
    help: 'the server',
    check: (url: string) => (/^https?:\/\/[^/]/.test(url) ? undefined : 'must be an http:// or https:// URL'),
  },
  'admin-key': { ...SERVER_SETTINGS.adminKey, help: 'for account create, pause and resume' },
  'account-key': {
    flag: 'account-key',
    variable: 'FOXBELL_ACCOUNT_KEY',
    argument: 'KEY',
    type: 'text',
    secret: true,
    help: "for the account's own tokens, devices and key",
    check: (key: string) => {
      const odd = keyCharacterProblem(key);
      return (
        odd &&
        `${odd}: give the whole key \`admin account create\` printed, not a placeholder such as fox_acct_…`
      );
    },
  },
  json: {
    flag: 'json',
    type: 'switch',
    help: 'print the API response as it is (a failure too: nothing on stderr)',
  },
} as const satisfies Record<string, Setting>;

/**
 * The exit codes of `foxbell-server admin`: the same numbers as `notify`'s for the same kinds of
 * failure, so one script can branch on both. The help text is made from this table.
 */
export const ADMIN_EXIT_CODES = {
  ok: { code: 0, means: 'done' },
  failure: { code: 1, means: 'failure' },
  usage: { code: 2, means: 'usage or validation' },
  auth: { code: 3, means: 'authentication or permission' },
  limited: { code: 4, means: 'rate limit' },
  unavailable: { code: 5, means: 'server unreachable or failing' },
} as const;

type ExitName = keyof typeof ADMIN_EXIT_CODES;

/** Each exit code by name: `ADMIN_EXIT.usage` is 2. */
export const ADMIN_EXIT = Object.fromEntries(
  Object.entries(ADMIN_EXIT_CODES).map(([name, { code }]) => [name, code]),
) as { readonly [Name in ExitName]: (typeof ADMIN_EXIT_CODES)[Name]['code'] };

/** What an HTTP status of the management API means as an exit code. */
export function exitCodeOf(status: number): number {
  if (status === 401 || status === 403) return ADMIN_EXIT.auth;
  if (status === 429) return ADMIN_EXIT.limited;
  if (status >= 500) return ADMIN_EXIT.unavailable;
  if (status >= 400) return ADMIN_EXIT.usage;
  return ADMIN_EXIT.failure;
}
