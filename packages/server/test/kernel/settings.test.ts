import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings, type Setting, settingName, usageOf } from '../../src/kernel/settings.js';
import { tempDir } from '../processes.js';

/** A table of each kind, as a process's settings are written. */
const TABLE = {
  port: {
    flag: 'port',
    variable: 'X_PORT',
    argument: 'N',
    type: 'integer',
    min: 0,
    max: 65_535,
    default: 8787,
    help: 'the port',
  },
  mode: {
    flag: 'mode',
    variable: 'X_MODE',
    argument: 'M',
    type: 'choice',
    choices: ['a', 'b'],
    default: 'a',
    help: 'which',
  },
  quiet: { flag: 'quiet', variable: 'X_QUIET', type: 'switch', help: 'say less' },
  name: {
    flag: 'name',
    argument: 'S',
    type: 'text',
    help: 'a name',
    check: (text: string) => (text.includes(' ') ? 'must have no space' : undefined),
  },
  key: { flag: 'key', variable: 'X_KEY', argument: 'K', type: 'text', secret: true, help: 'the secret' },
} as const satisfies Record<string, Setting>;

const read = (argv: string[], env: NodeJS.ProcessEnv = {}) => readSettings(TABLE, argv, env);

describe("a process's settings, read from one table", () => {
  it('takes each default, a variable over it and a flag over both', () => {
    expect(read([])).toMatchObject({
      ok: true,
      values: { port: 8787, mode: 'a', quiet: false },
      problems: [],
    });
    expect(read([], { X_PORT: '9000', X_MODE: 'b', X_QUIET: 'true' })).toMatchObject({
      values: { port: 9000, mode: 'b', quiet: true },
    });
    expect(read(['--port', '1', '--quiet'], { X_PORT: '9000', X_QUIET: '0' })).toMatchObject({
      values: { port: 1, quiet: true },
    });
    // An empty variable is as if unset.
    expect(read([], { X_PORT: '' })).toMatchObject({ values: { port: 8787 } });
  });

  it('lists every bad value at once, naming the flag and its variable', () => {
    const result = read(['--port', '70000', '--mode', 'c', '--name', 'two words'], { X_PORT: 'x' });
    expect(result.ok === true && result.problems).toEqual([
      '--port (X_PORT) must be an integer from 0 to 65535, not "70000"',
      '--mode (X_MODE) must be one of a, b, not "c"',
      '--name must have no space',
    ]);
    expect(read(['--port', '1.5']).ok === true && read(['--port', '1.5'])).toMatchObject({
      problems: ['--port (X_PORT) must be an integer from 0 to 65535, not "1.5"'],
    });
  });

  it('rejects an unknown flag, and handles --help', () => {
    expect(read(['--colour'])).toEqual({ ok: false, problems: [expect.stringContaining("'--colour'")] });
    expect(read(['--help'])).toEqual({ ok: 'help' });
  });

  it('reads a secret from its file (flag or VARIABLE_FILE) without its line end, and warns of one on the command line', async () => {
    const file = path.join(await tempDir(), 'key');
    await writeFile(file, 's3cret\n');
    expect(read(['--key-file', file])).toMatchObject({ values: { key: 's3cret' }, warnings: [] });
    expect(read([], { X_KEY_FILE: file })).toMatchObject({ values: { key: 's3cret' } });
    expect(read([], { X_KEY: 'fromenv', X_KEY_FILE: file })).toMatchObject({ values: { key: 'fromenv' } });
    const flagged = read(['--key', 'visible']);
    expect(flagged).toMatchObject({ values: { key: 'visible' } });
    expect(flagged.ok === true && flagged.warnings).toEqual([
      '--key on the command line can be read by every user of this machine (ps, /proc); give --key-file FILE or X_KEY instead',
    ]);
    const missing = read(['--key-file', path.join(file, 'nope')]);
    expect(missing.ok === true && missing.problems).toEqual(['--key-file cannot be read: ENOTDIR']);
  });

  it('names a setting as a problem says it, and writes the help with each variable and default', () => {
    expect(settingName(TABLE.port)).toBe('--port (X_PORT)');
    expect(settingName(TABLE.name)).toBe('--name');
    const usage = usageOf('Usage: x [options]', TABLE);
    expect(usage).toContain('  --port N              the port (X_PORT, default 8787)');
    expect(usage).toContain(
      '  --key-file FILE       the same, read from FILE (X_KEY_FILE); safer than the flag',
    );
    expect(usage.endsWith('  --help                print this and exit\n')).toBe(true);
    for (const line of usage.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});
