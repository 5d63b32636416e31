import { integerOrText, validateSend } from '@foxbell/sdk/contract';
import { CONFIG_KEYS, configPath, profileName, readConfig, writeConfig } from '../config.js';
import type { Handler } from '../context.js';
import { EXIT, usageError } from '../exit-codes.js';
import { CONFIG_KEY_NAMES, type GlobalArgs } from '../flags.js';

type Key = keyof typeof CONFIG_KEYS;

interface ConfigArgs extends GlobalArgs {
  action: 'list' | 'get' | 'set' | 'unset' | 'path';
  key?: Key;
  value?: string;
}

/** Tokens are secrets: the config command says whether one is saved, never what it is. */
const HIDDEN = '(saved, hidden)';

export const run: Handler<ConfigArgs> = async (args, { out, env }) => {
  const path = configPath(env);
  if (args.action === 'path') {
    out.result({ path }, () => path, path);
    return EXIT.ok;
  }
  const config = await readConfig(path);
  const shown = (profile: Record<string, string | undefined>) =>
    Object.fromEntries(
      Object.entries(profile).map(([key, value]) => [key, key === 'token' && value ? HIDDEN : value]),
    );
  if (args.action === 'list') {
    const profiles = Object.fromEntries(
      Object.entries(config.profiles).map(([name, p]) => [name, shown({ ...p })]),
    );
    out.result({ path, profiles }, () =>
      Object.keys(profiles).length === 0
        ? `No profiles in ${path}; save one with \`notify login\``
        : Object.entries(profiles)
            .map(([name, p]) =>
              [`[${name}]`, ...Object.entries(p).map(([key, value]) => `  ${key} = ${value}`)].join('\n'),
            )
            .join('\n'),
    );
    return EXIT.ok;
  }
  const profile = profileName({ profile: args.profile }, env);
  if (args.key === undefined)
    throw usageError(`\`notify config ${args.action}\` needs a key: ${CONFIG_KEY_NAMES.join(', ')}`);
  const field = CONFIG_KEYS[args.key];
  const saved = config.profiles[profile] ?? {};
  if (args.action === 'get') {
    const display = shown({ ...saved })[field];
    out.result(
      { profile, key: args.key, value: display ?? null },
      () => display ?? '(not set)',
      display ?? '',
    );
    return display === undefined ? EXIT.failure : EXIT.ok;
  }
  if (args.action === 'set') {
    if (args.value === undefined || args.value === '')
      throw usageError(`\`notify config set ${args.key}\` needs a value`);
    if (field === 'token') {
      out.warn(
        'a token on the command line may be saved in your shell history; `notify login` reads it from a prompt',
      );
    }
    if (field === 'base_url' && !URL.canParse(args.value)) throw usageError(`Not a URL: ${args.value}`);
    if (field !== 'base_url' && field !== 'token') checkFieldDefault(field, args.value);
    config.profiles[profile] = { ...saved, [field]: args.value };
  } else {
    const { [field]: _removed, ...rest } = saved;
    config.profiles[profile] = rest;
  }
  await writeConfig(path, config);
  out.result(
    { profile, key: args.key, saved: args.action === 'set' },
    () => `${args.action === 'set' ? 'Saved' : 'Removed'} ${args.key} of profile "${profile}" in ${path}`,
  );
  return EXIT.ok;
};

/** A saved default must be a value the field takes: rejected now, not at every later send. */
function checkFieldDefault(field: string, value: string): void {
  const checked = validateSend({ message: 'x', [field]: field === 'ttl' ? integerOrText(value) : value });
  if (!checked.ok) throw usageError(checked.error.message);
}
