import { readSettings, type Setting, usageOf } from '../../kernel/settings.js';
import { ADMIN_COMMANDS, type AdminCommand, type OptionValues } from './commands.js';
import { ADMIN_EXIT, ADMIN_EXIT_CODES, ADMIN_SETTINGS, exitCodeOf } from './settings.js';

/** What `foxbell-server admin` touches of its process. */
export interface AdminIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** The keys each command may take: the one its route takes. */
const KEY_FLAG = { admin: 'admin-key', account: 'account-key' } as const;

export const ADMIN_USAGE = `Usage: foxbell-server admin <command> [options]

Talks to a running foxbell-server's management API.

${ADMIN_COMMANDS.map((command) => `  ${`${command.name}${command.takesId ? ` ${command.takesId}` : ''}`.padEnd(22)}${command.summary}`).join('\n')}

${usageOf('Options of every command:', ADMIN_SETTINGS).trimEnd()}
  a command's own options: foxbell-server admin <command> --help

Exit codes: ${Object.values(ADMIN_EXIT_CODES)
  .map(({ code, means }) => `${code} ${means}`)
  .join(' · ')}
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
  const head = [
    `Usage: foxbell-server admin ${command.name}${command.takesId ? ` ${command.takesId}` : ''} [options]`,
    '',
    `  ${command.summary}; takes --${KEY_FLAG[command.credential]}`,
  ].join('\n');
  return usageOf(head, command.options ?? {});
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
  const keyFlag = KEY_FLAG[command.credential];
  const table: Record<string, Setting> = {
    'base-url': ADMIN_SETTINGS['base-url'],
    [keyFlag]: ADMIN_SETTINGS[keyFlag],
    json: ADMIN_SETTINGS.json,
    ...command.options,
  };
  const json = rest.includes('--json');
  try {
    const read = readSettings(table, rest, io.env, { positionals: true });
    if (read.ok === 'help') {
      io.stdout.write(commandUsage(command));
      return ADMIN_EXIT.ok;
    }
    if (read.ok === false || read.problems.length > 0) throw new UsageMistake(read.problems.join('; '));
    const values = read.values as OptionValues;
    if (!json) for (const warning of read.warnings) write(io.stderr, [`warning: ${warning}`]);
    const wanted = command.takesId ? 1 : 0;
    if (read.positionals.length !== wanted) {
      throw new UsageMistake(
        wanted === 1
          ? `${command.name} takes one ${command.takesId}`
          : `${command.name} takes no arguments: ${read.positionals.join(' ')}`,
      );
    }
    const id = read.positionals[0] ?? '';
    const key = values[keyFlag] as string | undefined;
    if (key === undefined) {
      throw new UsageMistake(`${command.name} needs --${keyFlag} (or ${ADMIN_SETTINGS[keyFlag].variable})`);
    }
    const body = command.body?.(values, id);
    if (typeof body === 'string') throw new UsageMistake(body);
    const baseUrl = (values['base-url'] as string).replace(/\/+$/, '');

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
      const body = { error: { code: 'unreachable', message: `cannot reach ${baseUrl}: ${why}` } };
      if (json) write(io.stdout, [JSON.stringify(body)]);
      else
        write(io.stderr, [
          `error: ${body.error.message}`,
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
        error?: { code?: string; message?: string; field?: string; details?: { limit?: unknown } };
      };
      const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
      const words =
        error?.code === undefined
          ? undefined
          : command.inWords?.({
              code: error.code,
              field: error.field,
              details: error.details,
              retryAfter: Number.isFinite(retryAfter) ? retryAfter : undefined,
            });
      write(io.stderr, [
        `error: ${words ?? error?.message ?? `the server responded ${response.status}`}`,
        `  code: ${error?.code ?? response.status}`,
        ...(error?.field ? [`  field: ${error.field}`] : []),
        ...(response.headers.get('x-request-id')
          ? [`  request: ${response.headers.get('x-request-id')}`]
          : []),
      ]);
    }
    return exitCodeOf(response.status);
  } catch (error) {
    if (!(error instanceof UsageMistake)) throw error;
    const message = (error as Error).message;
    if (json) write(io.stdout, [JSON.stringify({ error: { code: 'usage', message } })]);
    else write(io.stderr, [`error: ${message}`, `  next: foxbell-server admin ${command.name} --help`]);
    return ADMIN_EXIT.usage;
  }
}
