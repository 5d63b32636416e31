import { parseArgs } from 'node:util';
import { SERVER_SETTINGS } from '../../config/server-settings.js';
import { readSecret } from '../../config/settings.js';
import { ADMIN_COMMANDS, type AdminCommand, type OptionValues } from './commands.js';

/** What `foxbell-server admin` touches of its process. */
export interface AdminIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** The exit codes of `notify`, for the same kinds of failure. */
export const ADMIN_EXIT = { ok: 0, failure: 1, usage: 2, auth: 3, limited: 4, unavailable: 5 } as const;

const SETTINGS = {
  'base-url': {
    variable: 'FOXBELL_BASE_URL',
    argument: 'URL',
    help: `the server (default http://127.0.0.1:${SERVER_SETTINGS.port.default})`,
  },
  'admin-key': {
    variable: 'FOXBELL_ADMIN_KEY',
    argument: 'KEY',
    help: 'for account create, pause and resume',
  },
  'account-key': {
    variable: 'FOXBELL_ACCOUNT_KEY',
    argument: 'KEY',
    help: "for the account's own tokens, devices and key",
  },
} as const;

/** The keys: also read from a file (`--admin-key-file`, `FOXBELL_ADMIN_KEY_FILE`), warned of as flags. */
const SECRET_FLAGS = ['admin-key', 'account-key'] as const;

export const ADMIN_USAGE = `Usage: foxbell-server admin <command> [options]

Talks to a running foxbell-server's management API.

${ADMIN_COMMANDS.map((command) => `  ${`${command.name}${command.takesId ? ` ${command.takesId}` : ''}`.padEnd(22)}${command.summary}`).join('\n')}

Options of every command:
${Object.entries(SETTINGS)
  .map(
    ([flag, setting]) =>
      `  --${`${flag} ${setting.argument}`.padEnd(20)}${setting.help} (env ${setting.variable})`,
  )
  .join('\n')}
${SECRET_FLAGS.map((flag) => `  --${`${flag}-file FILE`.padEnd(20)}the same, read from FILE (env ${SETTINGS[flag].variable}_FILE)`).join('\n')}
  --json                print the API's answer as it is (a failure too: nothing on stderr)
  --help                this text, or a command's options: foxbell-server admin token create --help

Exit codes: 0 done · 1 failure · 2 usage or validation · 3 authentication or permission · 4 rate limit · 5 server unreachable or failing
`;

class UsageMistake extends Error {}

function commandOf(argv: string[]): { command: AdminCommand; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = ADMIN_COMMANDS.find((candidate) => candidate.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

function commandUsage(command: AdminCommand): string {
  const options = Object.entries(command.options ?? {}).map(
    ([flag, option]) =>
      `  --${`${flag}${option.argument ? ` ${option.argument}` : ''}`.padEnd(22)}${option.help}`,
  );
  return [
    `Usage: foxbell-server admin ${command.name}${command.takesId ? ` ${command.takesId}` : ''} [options]`,
    '',
    `  ${command.summary}; takes ${command.credential === 'admin' ? '--admin-key' : '--account-key'}`,
    ...(options.length > 0 ? ['', ...options] : []),
    '',
  ].join('\n');
}

/** `foxbell-server admin …`: one management call. Resolves with the exit code; never ends the process. */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const write = (stream: NodeJS.WritableStream, lines: string[]) => stream.write(`${lines.join('\n')}\n`);
  const found = commandOf(argv);
  if (!found) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help') {
      io.stdout.write(ADMIN_USAGE);
      return argv.length === 0 ? ADMIN_EXIT.usage : ADMIN_EXIT.ok;
    }
    write(io.stderr, [
      `error: unknown admin command "${argv.slice(0, 2).join(' ')}"`,
      '  next: run `foxbell-server admin --help` for the commands',
    ]);
    return ADMIN_EXIT.usage;
  }
  const { command, rest } = found;
  let json = false;
  try {
    const parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: {
        ...Object.fromEntries(Object.keys(SETTINGS).map((flag) => [flag, { type: 'string' as const }])),
        ...Object.fromEntries(SECRET_FLAGS.map((flag) => [`${flag}-file`, { type: 'string' as const }])),
        json: { type: 'boolean' },
        help: { type: 'boolean' },
        ...command.options,
      },
    });
    const values = parsed.values as OptionValues;
    json = values.json === true;
    if (values.help) {
      io.stdout.write(commandUsage(command));
      return ADMIN_EXIT.ok;
    }
    const setting = (flag: keyof typeof SETTINGS) =>
      (values[flag] as string | undefined) ?? (io.env[SETTINGS[flag].variable] || undefined);
    const wanted = command.takesId ? 1 : 0;
    if (parsed.positionals.length !== wanted) {
      throw new UsageMistake(
        wanted === 1
          ? `${command.name} takes one ${command.takesId}`
          : `${command.name} takes no arguments: ${parsed.positionals.join(' ')}`,
      );
    }
    const id = parsed.positionals[0] ?? '';
    const keyFlag = command.credential === 'admin' ? 'admin-key' : 'account-key';
    const secret = readSecret(
      { flag: keyFlag, variable: SETTINGS[keyFlag].variable },
      values[keyFlag] as string | undefined,
      values[`${keyFlag}-file`] as string | undefined,
      io.env,
    );
    if (secret.problem) throw new UsageMistake(secret.problem);
    if (secret.warning && !json) write(io.stderr, [`warning: ${secret.warning}`]);
    const key = secret.value;
    if (key === undefined)
      throw new UsageMistake(`${command.name} needs --${keyFlag} (or ${SETTINGS[keyFlag].variable})`);
    const body = command.body?.(values);
    if (typeof body === 'string') throw new UsageMistake(body);
    const baseUrl = (setting('base-url') ?? `http://127.0.0.1:${SERVER_SETTINGS.port.default}`).replace(
      /\/+$/,
      '',
    );
    if (!/^https?:\/\/[^/]/.test(baseUrl))
      throw new UsageMistake('--base-url must be an http:// or https:// URL');

    let response: Response;
    try {
      response = await fetch(`${baseUrl}${command.path(id)}`, {
        method: command.method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      const answer = { error: { code: 'unreachable', message: `cannot reach ${baseUrl}: ${why}` } };
      if (json) write(io.stdout, [JSON.stringify(answer)]);
      else
        write(io.stderr, [
          `error: ${answer.error.message}`,
          '  next: is foxbell-server running there? (--base-url, FOXBELL_BASE_URL)',
        ]);
      return ADMIN_EXIT.unavailable;
    }
    const text = await response.text();
    if (response.ok) {
      if (json) {
        if (text !== '') write(io.stdout, [text]);
      } else write(io.stdout, command.show(text === '' ? {} : JSON.parse(text), id));
      return ADMIN_EXIT.ok;
    }
    if (json) write(io.stdout, [text]);
    else {
      const { error } = JSON.parse(text || '{}') as {
        error?: { code?: string; message?: string; field?: string };
      };
      write(io.stderr, [
        `error: ${error?.message ?? `the server answered ${response.status}`}`,
        `  code: ${error?.code ?? response.status}`,
        ...(error?.field ? [`  field: ${error.field}`] : []),
        ...(response.headers.get('x-request-id')
          ? [`  request: ${response.headers.get('x-request-id')}`]
          : []),
      ]);
    }
    return exitCodeOf(response.status);
  } catch (error) {
    if (
      !(error instanceof UsageMistake) &&
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') !== true
    )
      throw error;
    const message = (error as Error).message;
    if (json) write(io.stdout, [JSON.stringify({ error: { code: 'usage', message } })]);
    else write(io.stderr, [`error: ${message}`, `  next: foxbell-server admin ${command.name} --help`]);
    return ADMIN_EXIT.usage;
  }
}

function exitCodeOf(status: number): number {
  if (status === 401 || status === 403) return ADMIN_EXIT.auth;
  if (status === 429) return ADMIN_EXIT.limited;
  if (status >= 500) return ADMIN_EXIT.unavailable;
  if (status >= 400) return ADMIN_EXIT.usage;
  return ADMIN_EXIT.failure;
}
