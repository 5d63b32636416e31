import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * Command-line settings declared as a table, each row once: its flag, its environment variable,
 * its default, its check and its help. The table gives `parseArgs` its options, `--help` its text
 * and the program its values; a value comes from the flag, else the variable, else the default.
 */

interface Common {
  flag: string;
  /** The environment variable that sets it when the flag is not given. */
  variable?: string;
  /** The placeholder in the help text: `--port N`. */
  argument?: string;
  help: string;
  /** Shown in the help text when the default is not the value itself (a default computed later). */
  defaultText?: string;
}

export type Setting = Common &
  (
    | { type: 'integer'; min: number; max: number; default?: number }
    | {
        type: 'text';
        default?: string;
        check?: (value: string) => string | undefined;
        /**
         * A secret: also read from a file (`--FLAG-file`, `VARIABLE_FILE`: a systemd credential,
         * a container secret), and a warning when given as a flag, which every local user can read
         * in the process list.
         */
        secret?: true;
      }
    | { type: 'choice'; choices: readonly string[]; default?: string }
    /** A switch: given, or its variable set to `1` or `true`. */
    | { type: 'switch' }
  );

type ValueOf<S extends Setting> = S extends { type: 'integer' }
  ? number | (S extends { default: number } ? never : undefined)
  : S extends { type: 'switch' }
    ? boolean
    : S extends { type: 'choice'; choices: readonly (infer C)[] }
      ? C | (S extends { default: string } ? never : undefined)
      : string | (S extends { default: string } ? never : undefined);

export type SettingValues<Table extends Record<string, Setting>> = {
  [Name in keyof Table]: ValueOf<Table[Name]>;
};

export type SettingsRead<Table extends Record<string, Setting>> =
  | {
      ok: true;
      values: SettingValues<Table>;
      positionals: string[];
      problems: string[];
      /** Not wrong, but worth saying: a secret given on the command line. */
      warnings: string[];
    }
  | { ok: false; problems: string[] }
  | { ok: 'help' };

/** `--flag (VARIABLE)`: how a problem names the setting. */
export function settingName(setting: Pick<Common, 'flag' | 'variable'>): string {
  return setting.variable ? `--${setting.flag} (${setting.variable})` : `--${setting.flag}`;
}

/**
 * Reads every setting of the table. A value that fails its check is a problem, listed with the
 * others; the caller adds its own (settings that depend on each other) before deciding.
 */
export function readSettings<Table extends Record<string, Setting>>(
  table: Table,
  argv: string[],
  env: NodeJS.ProcessEnv,
  options: { positionals?: boolean } = {},
): SettingsRead<Table> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: options.positionals ?? false,
      options: {
        ...Object.fromEntries(
          Object.values(table).flatMap((setting) => [
            [setting.flag, { type: setting.type === 'switch' ? ('boolean' as const) : ('string' as const) }],
            ...(isSecret(setting) ? [[`${setting.flag}-file`, { type: 'string' as const }]] : []),
          ]),
        ),
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    return { ok: false, problems: [(error as Error).message] };
  }
  if (parsed.values.help) return { ok: 'help' };

  const problems: string[] = [];
  const warnings: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(table)) {
    const given = parsed.values[setting.flag];
    const fromEnv = setting.variable === undefined ? undefined : env[setting.variable];
    if (setting.type === 'switch') {
      values[name] = given === true || fromEnv === '1' || fromEnv === 'true';
      continue;
    }
    let text = (given as string | undefined) ?? (fromEnv === '' ? undefined : fromEnv);
    if (isSecret(setting)) {
      const secret = readSecret(
        { flag: setting.flag, variable: setting.variable },
        given as string | undefined,
        parsed.values[`${setting.flag}-file`] as string | undefined,
        env,
      );
      text = secret.value;
      if (secret.warning) warnings.push(secret.warning);
      if (secret.problem) problems.push(secret.problem);
    }
    if (text === undefined) {
      values[name] = setting.default;
      continue;
    }
    if (setting.type === 'integer') {
      const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
      if (!(value >= setting.min && value <= setting.max)) {
        problems.push(
          `${settingName(setting)} must be an integer from ${setting.min} to ${setting.max}, not "${text}"`,
        );
      }
      values[name] = value;
    } else if (setting.type === 'choice') {
      if (!setting.choices.includes(text)) {
        problems.push(`${settingName(setting)} must be one of ${setting.choices.join(', ')}, not "${text}"`);
      }
      values[name] = text;
    } else {
      const problem = setting.check?.(text);
      if (problem) problems.push(`${settingName(setting)} ${problem}`);
      values[name] = text;
    }
  }
  return {
    ok: true,
    values: values as SettingValues<Table>,
    positionals: parsed.positionals,
    problems,
    warnings,
  };
}

function isSecret(setting: Setting): boolean {
  return setting.type === 'text' && setting.secret === true;
}

/**
 * A secret's value: the flag (with a warning: every user of the machine can read a command line),
 * else `--FLAG-file`, else the variable, else the file `VARIABLE_FILE` names. A file's content is
 * taken less the line end an editor or `echo` leaves, and never quoted back in a problem.
 */
export function readSecret(
  names: { flag: string; variable?: string | undefined },
  given: string | undefined,
  givenFile: string | undefined,
  env: NodeJS.ProcessEnv,
): { value: string | undefined; warning?: string; problem?: string } {
  const instead = `--${names.flag}-file FILE${names.variable ? ` or ${names.variable}` : ''}`;
  if (given !== undefined) {
    return {
      value: given,
      warning: `--${names.flag} on the command line can be read by every user of this machine (ps, /proc); give ${instead} instead`,
    };
  }
  const fromEnv = names.variable === undefined ? undefined : env[names.variable] || undefined;
  const file =
    givenFile !== undefined
      ? { path: givenFile, name: `--${names.flag}-file` }
      : fromEnv === undefined && names.variable !== undefined && env[`${names.variable}_FILE`]
        ? { path: env[`${names.variable}_FILE`] as string, name: `${names.variable}_FILE` }
        : undefined;
  if (file === undefined) return { value: fromEnv };
  try {
    return { value: readFileSync(file.path, 'utf8').replace(/\r?\n$/, '') };
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return { value: undefined, problem: `${file.name} cannot be read: ${why}` };
  }
}

/**
 * What a program says of settings it rejects: each problem on a line of its own, then where every
 * setting is described. Not the whole help: a page of it would bury the lines that matter.
 */
export function settingsErrors(program: string, problems: readonly string[]): string {
  return [...problems, `\`${program} --help\` lists every setting`]
    .map((line) => `${program}: ${line}\n`)
    .join('');
}

const HELP_COLUMN = 24;
const HELP_WIDTH = 100;

/** The help text of a table: a setting each, its variable and default at the end, wrapped. */
export function usageOf(head: string, table: Record<string, Setting>): string {
  const entries = Object.values(table).map((setting) => {
    const shownDefault =
      setting.defaultText ??
      ('default' in setting && setting.default !== undefined ? String(setting.default) : undefined);
    const source = [setting.variable, shownDefault === undefined ? undefined : `default ${shownDefault}`]
      .filter((part) => part !== undefined)
      .join(', ');
    const left = `--${setting.flag}${setting.argument ? ` ${setting.argument}` : ''}`;
    const entry = helpEntry(left, `${setting.help}${source ? ` (${source})` : ''}`);
    if (!isSecret(setting)) return entry;
    const fileVariable = setting.variable === undefined ? '' : ` (${setting.variable}_FILE)`;
    return `${entry}\n${helpEntry(`--${setting.flag}-file FILE`, `the same, read from FILE${fileVariable}; safer than the flag`)}`;
  });
  return `${head}\n\n${entries.join('\n')}\n${helpEntry('--help', 'print this and exit')}\n`;
}

/** `  --flag ARG   help…`, the help wrapped at HELP_WIDTH and indented to HELP_COLUMN. */
function helpEntry(left: string, text: string): string {
  const lines: string[] = [];
  let line = `  ${left}`;
  if (line.length >= HELP_COLUMN) {
    lines.push(line);
    line = '';
  }
  line = line.padEnd(HELP_COLUMN);
  for (const word of text.split(' ')) {
    if (line.length > HELP_COLUMN && line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = ' '.repeat(HELP_COLUMN);
    }
    line += line.length > HELP_COLUMN ? ` ${word}` : word;
  }
  lines.push(line);
  return lines.join('\n');
}
