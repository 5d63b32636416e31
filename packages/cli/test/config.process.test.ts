import { execFile } from 'node:child_process';
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createAccount, NOTIFY_BIN, notify, sharedService, tempDir } from './helpers.js';

const service = sharedService();

/** A config file of this test's own, shared by the runs that name it. */
async function configEnv(): Promise<{ NOTIFY_CONFIG: string }> {
  return { NOTIFY_CONFIG: join(await tempDir(), 'foxbell', 'config.json') };
}

describe('notify login and config', () => {
  it('saves a checked token from stdin readable by its owner only, and later runs use it', async () => {
    const account = await createAccount(service);
    const env = await configEnv();
    const login = await notify(['login', '--base-url', service.url], { env, input: `${account.token}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe(`Saved profile "default" for ${service.url} in ${env.NOTIFY_CONFIG}\n`);
    expect((await stat(env.NOTIFY_CONFIG)).mode & 0o777).toBe(0o600);
    expect((await stat(join(env.NOTIFY_CONFIG, '..'))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(env.NOTIFY_CONFIG, 'utf8'))).toEqual({
      profiles: { default: { base_url: service.url, token: account.token } },
    });
    const sent = await notify(['send', 'from the saved profile'], { env });
    expect(sent.code).toBe(0);
    expect(login.stdout + login.stderr + sent.stdout + sent.stderr).not.toContain(account.token);
  });

  it('reads the token at a terminal prompt without echoing it, and does not warn about history', async () => {
    const account = await createAccount(service);
    const env = await configEnv();
    // `script` gives notify a pseudo-terminal; the token is typed a moment after the prompt.
    const command = `stty cols 100; ${process.execPath} ${NOTIFY_BIN} login --base-url ${service.url}`;
    const typed = `(sleep 1; printf '%s\\r' ${account.token}) | script -qec "${command}" /dev/null`;
    const { stdout } = await promisify(execFile)('bash', ['-c', typed], { env: { ...process.env, ...env } });
    expect(stdout).toContain('Send token (input hidden): ');
    expect(stdout).toContain('Saved profile "default"');
    expect(stdout).not.toContain(account.token);
    expect(stdout).not.toContain('shell history');
    expect(JSON.parse(await readFile(env.NOTIFY_CONFIG, 'utf8')).profiles.default.token).toBe(account.token);
  });

  it('keeps profiles apart and picks one with --profile or NOTIFY_PROFILE', async () => {
    const account = await createAccount(service);
    const env = await configEnv();
    const login = await notify(['login', '--base-url', service.url, '--profile', 'ci'], {
      env,
      input: account.token,
    });
    expect(login.code).toBe(0);
    expect((await notify(['send', 'hi'], { env })).code).toBe(2);
    expect((await notify(['send', 'hi', '--profile', 'ci'], { env })).code).toBe(0);
    expect((await notify(['send', 'hi'], { env: { ...env, NOTIFY_PROFILE: 'ci' } })).code).toBe(0);
  });

  it('rejects a token the service does not accept, and saves nothing', async () => {
    const env = await configEnv();
    const login = await notify(['login', '--base-url', service.url], {
      env,
      input: `fox_send_${'Q'.repeat(32)}`,
    });
    expect(login.code).toBe(3);
    expect(login.stderr).toContain('code: unauthorized');
    await expect(stat(env.NOTIFY_CONFIG)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes flags over the environment over the config file', async () => {
    const env = await configEnv();
    const set = await notify(['config', 'set', 'base-url', 'http://config.example'], { env });
    expect(set.code).toBe(0);
    const token = { NOTIFY_TOKEN: `fox_send_${'a'.repeat(32)}` };
    const urlOf = async (extraEnv: Record<string, string>, args: string[] = []) => {
      const run = await notify(['send', 'hi', '--dry-run', '--json', ...args], {
        env: { ...env, ...token, ...extraEnv },
      });
      return JSON.parse(run.stdout).request.url;
    };
    expect(await urlOf({})).toBe('http://config.example/v1/notifications');
    expect(await urlOf({ NOTIFY_BASE_URL: 'http://env.example' })).toBe(
      'http://env.example/v1/notifications',
    );
    expect(
      await urlOf({ NOTIFY_BASE_URL: 'http://env.example' }, ['--base-url', 'http://flag.example']),
    ).toBe('http://flag.example/v1/notifications');
  });

  it('lists, gets and unsets settings without ever showing a token', async () => {
    const account = await createAccount(service);
    const env = await configEnv();
    await notify(['login', '--base-url', service.url, '--no-verify'], { env, input: account.token });
    const list = await notify(['config', 'list'], { env });
    expect(list.stdout).toBe(`[default]\n  base_url = ${service.url}\n  token = (saved, hidden)\n`);
    const json = await notify(['config', 'list', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual({
      path: env.NOTIFY_CONFIG,
      profiles: { default: { base_url: service.url, token: '(saved, hidden)' } },
    });
    expect((await notify(['config', 'get', 'token'], { env })).stdout).toBe('(saved, hidden)\n');
    expect((await notify(['config', 'get', 'base-url'], { env })).stdout).toBe(`${service.url}\n`);
    expect((await notify(['config', 'unset', 'token'], { env })).code).toBe(0);
    const unset = await notify(['config', 'get', 'token'], { env });
    expect(unset).toMatchObject({ code: 1, stdout: '(not set)\n' });
    expect((await notify(['config', 'path'], { env })).stdout).toBe(`${env.NOTIFY_CONFIG}\n`);
    for (const run of [list, json]) expect(run.stdout).not.toContain(account.token);
  });

  it('tightens a config file that was readable by others when it rewrites it', async () => {
    const env = await configEnv();
    await notify(['config', 'set', 'base-url', 'http://one.example'], { env });
    await chmod(env.NOTIFY_CONFIG, 0o644);
    await notify(['config', 'set', 'base-url', 'http://two.example'], { env });
    expect((await stat(env.NOTIFY_CONFIG)).mode & 0o777).toBe(0o600);
  });

  it('says what is wrong with a broken config file', async () => {
    const env = await configEnv();
    await notify(['config', 'set', 'base-url', 'http://one.example'], { env });
    await writeFile(env.NOTIFY_CONFIG, '{ not json');
    const run = await notify(['send', 'hi'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: The config file ${env.NOTIFY_CONFIG} is not valid JSON`);
  });
});
