import { Readable, Writable } from 'node:stream';
import { freePort } from '@foxbell/test-support';
import { describe, expect, it } from 'vitest';
import { type CliIo, runCli } from '../src/cli.js';
import { CLI_VERSION } from '../src/version.js';
import { createAccount, pushesTo, sharedService, tempDir } from './helpers.js';

/** `notify` run in this process, on streams of its own: what it wrote, and its exit code. */
async function inProcess(
  argv: string[],
  options: { env?: Record<string, string>; input?: string; terminal?: boolean } = {},
) {
  const written = { stdout: '', stderr: '' };
  const stream = (name: 'stdout' | 'stderr') =>
    Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          written[name] += String(chunk);
          done();
        },
      }),
      // A terminal 80 columns wide, where notify draws its spinner (ora moves the cursor).
      options.terminal
        ? { isTTY: true, columns: 80, cursorTo: () => true, moveCursor: () => true, clearLine: () => true }
        : {},
    ) as unknown as NodeJS.WriteStream;
  const home = await tempDir();
  const io: CliIo = {
    stdout: stream('stdout'),
    stderr: stream('stderr'),
    env: { HOME: home, NOTIFY_CONFIG: `${home}/config.json`, ...options.env },
    stdin: Readable.from(
      options.input === undefined ? [] : [Buffer.from(options.input)],
    ) as unknown as NodeJS.ReadStream,
  };
  const code = await runCli(argv, io);
  return { code, ...written };
}

const service = sharedService('relaxed');

describe('runCli, in-process', () => {
  it('on a terminal, shows a retry on its spinner while it waits, instead of a line', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await inProcess(['send', 'hi', '--retries', '1'], {
      env: { NOTIFY_BASE_URL: closed, NOTIFY_TOKEN: `fox_send_${'a'.repeat(32)}`, TERM: 'xterm' },
      terminal: true,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/Sending: attempt 1 failed \(no connection\); retry 1 of 1 in 1\.\d s/);
    expect(run.stderr).not.toContain('warning: attempt 1 failed');
  });

  it('sends, and writes its result only to the streams it was given', async () => {
    const account = await createAccount(service);
    const env = { NOTIFY_BASE_URL: service.url, NOTIFY_TOKEN: account.token };
    const run = await inProcess(['send', 'Deploy finished', '--scene', 'rocket', '--json'], { env });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ id: expect.stringMatching(/^ntf_/), status: 'accepted' });
    await expect.poll(async () => (await pushesTo(service, account.pushTokens[0])).length).toBe(1);
  });

  it('reads the message from the stdin it was given', async () => {
    const account = await createAccount(service);
    const env = { NOTIFY_BASE_URL: service.url, NOTIFY_TOKEN: account.token };
    const run = await inProcess(['send', '-', '--quiet'], { env, input: 'from a pipe\n' });
    expect([run.code, run.stderr]).toEqual([0, '']);
    await expect
      .poll(async () => (await pushesTo(service, account.pushTokens[0]))[0])
      .toMatchObject({ aps: { alert: { body: 'from a pipe' } } });
  });

  it('runs side by side with another run: each has its own arguments, settings and exit code', async () => {
    const account = await createAccount(service);
    const [sent, refused] = await Promise.all([
      inProcess(['send', 'first', '--quiet'], {
        env: { NOTIFY_BASE_URL: service.url, NOTIFY_TOKEN: account.token },
      }),
      inProcess(['send', 'second', '--json'], {
        env: { NOTIFY_BASE_URL: service.url, NOTIFY_TOKEN: `fox_send_${'W'.repeat(32)}` },
      }),
    ]);
    expect([sent.code, sent.stdout]).toEqual([0, expect.stringMatching(/^ntf_\w+\n$/)]);
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'unauthorized' } });
    // A token of the wrong shape is a setting to fix, found before anything is sent.
    const malformed = await inProcess(['send', 'third', '--json'], {
      env: { NOTIFY_BASE_URL: service.url, NOTIFY_TOKEN: 'fb_live_wrong' },
    });
    expect(malformed.code).toBe(2);
    expect(JSON.parse(malformed.stdout)).toMatchObject({ error: { code: 'invalid_config' } });
  });

  it('prints the version and the help to its stdout, and a usage mistake to its stderr with 2', async () => {
    expect(await inProcess(['--version'])).toEqual({ code: 0, stdout: `${CLI_VERSION}\n`, stderr: '' });
    const help = await inProcess(['send', '--help']);
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toContain('notify send [message..]');
    expect(await inProcess(['sned'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: Unknown command "sned": did you mean send?\n  Run `notify --help` for usage.\n',
    });
  });
});
