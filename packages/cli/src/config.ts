import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT, usageError } from './exit-codes.js';
import { CONFIG_KEY_NAMES, DEFAULTABLE_FLAGS, type DefaultableFlag, variableOf } from './flags.js';

/**
 * Where `notify` finds its service and token: flags, then the environment (`NOTIFY_TOKEN`,
 * `NOTIFY_BASE_URL`), then the profile in the config file. Read once per run, here.
 */

export interface Profile {
  base_url?: string;
  token?: string;
  scene?: string;
  level?: string;
  target?: string;
  group?: string;
  ttl?: string;
  sound?: string;
  bell_color?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export interface ConnectionFlags {
  profile?: string | undefined;
  token?: string | undefined;
  baseUrl?: string | undefined;
}

export interface Settings {
  profile: string;
  token: string | undefined;
  baseUrl: string | undefined;
  /** Send flags not given on the command line, from NOTIFY_<FLAG> or the profile. */
  fieldDefaults: Partial<Record<DefaultableFlag, string>>;
}

export const DEFAULT_PROFILE = 'default';
/** Each `notify config` key and its name in the file: the flag's, with `_` for `-`. */
export const CONFIG_KEYS = Object.fromEntries(
  CONFIG_KEY_NAMES.map((key) => [key, key.replace('-', '_')]),
) as Record<(typeof CONFIG_KEY_NAMES)[number], keyof Profile>;
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A config file is a few hundred bytes; anything far larger is not ours. */
const MAX_CONFIG_BYTES = 64 * 1024;

/** `NOTIFY_CONFIG`, else the platform's per-user config directory. */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.NOTIFY_CONFIG) return env.NOTIFY_CONFIG;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'foxbell', 'config.json');
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'foxbell', 'config.json');
}

export function profileName(flags: ConnectionFlags, env: NodeJS.ProcessEnv): string {
  const name = flags.profile ?? (env.NOTIFY_PROFILE || DEFAULT_PROFILE);
  if (!PROFILE_NAME.test(name)) {
    throw usageError(`Not a profile name: ${JSON.stringify(name)}`, 'Use letters, digits, ".", "_" and "-"');
  }
  return name;
}

export async function readConfig(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw configError(path, `cannot be read (${(error as NodeJS.ErrnoException).code})`, error);
  }
  if (text.length > MAX_CONFIG_BYTES) throw configError(path, 'is too large to be a notify config file');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw configError(path, 'is not valid JSON', error);
  }
  const profiles = (parsed as { profiles?: unknown } | null)?.profiles;
  if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) {
    throw configError(path, 'has no "profiles" object');
  }
  for (const [name, profile] of Object.entries(profiles)) {
    const valid =
      typeof profile === 'object' &&
      profile !== null &&
      Object.entries(profile).every(
        ([key, value]) => Object.values(CONFIG_KEYS).includes(key as never) && typeof value === 'string',
      );
    if (!valid) throw configError(path, `has a malformed profile ${JSON.stringify(name)}`);
  }
  return { profiles: profiles as Record<string, Profile> };
}

/**
 * Writes the file readable by its owner only (0600, in a 0700 directory): it holds tokens. The
 * new content goes to a temporary file first, so a crash never leaves half a config behind.
 */
export async function writeConfig(path: string, config: ConfigFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created, and a umask may have narrowed or widened it.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

export async function resolveSettings(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Promise<Settings> {
  const profile = profileName(flags, env);
  const stored = (await readConfig(configPath(env))).profiles[profile] ?? {};
  const pick = (flag: string | undefined, variable: string | undefined, saved: string | undefined) =>
    flag ?? (variable === '' ? undefined : variable) ?? saved;
  const fieldDefaults: Settings['fieldDefaults'] = {};
  for (const flag of DEFAULTABLE_FLAGS) {
    const value = pick(undefined, env[variableOf(flag)], stored[CONFIG_KEYS[flag]]);
    if (value !== undefined) fieldDefaults[flag] = value;
  }
  return {
    profile,
    token: pick(flags.token, env.NOTIFY_TOKEN, stored.token),
    baseUrl: pick(flags.baseUrl, env.NOTIFY_BASE_URL, stored.base_url),
    fieldDefaults,
  };
}

function configError(path: string, problem: string, cause?: unknown): CliError {
  return new CliError('invalid_config', `The config file ${path} ${problem}`, {
    exitCode: EXIT.usage,
    hint: 'Fix or remove it; `notify login` writes a new one',
    cause,
  });
}
