import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { call, createAccount, NOTIFY_BIN, notify, sharedService, tempDir, using } from './helpers.js';

const service = sharedService();

describe('notify status', () => {
  it("shows the status and each device's state, and follows it with --wait", async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const id = (await notify(['send', 'hi', '--target', 'watch', '--quiet'], { env })).stdout.trim();
    const waited = await notify(['status', id, '--wait', '20', '--json'], { env });
    expect(waited.code).toBe(0);
    expect(JSON.parse(waited.stdout)).toEqual({
      id,
      status: 'sent_to_push',
      destinations: [
        {
          name: "Ana's Watch",
          platform: 'watchos',
          state: 'accepted',
          push_status: 200,
          updated_at: expect.any(String),
        },
      ],
      handled: [],
    });
    const shown = await notify(['status', id], { env });
    expect(shown.stdout).toMatch(
      new RegExp(`^${id} sent_to_push\\n {2}Ana's Watch reached \\(200\\), \\d{4}-\\S+Z\\n$`),
    );
    const quiet = await notify(['status', id, '-q'], { env });
    expect(quiet.stdout).toBe('sent_to_push\n');
  });

  it('ends --wait on a dropped notification with 7: it will not arrive', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const id = (await notify(['send', 'hi', '--target', 'nobody', '-q'], { env })).stdout.trim();
    const run = await notify(['status', id, '--wait'], { env });
    expect(run.code).toBe(7);
    expect(run.stdout).toBe(`${id} dropped (no_matching_device)\n`);
  });
});

describe('notify scenes and devices', () => {
  it("lists each scene with its parameters' values and defaults", async () => {
    const account = await createAccount(service);
    const run = await notify(['scenes'], { env: using(service, account.token) });
    expect(run.code).toBe(0);
    // The names in one column, after the longest id (fireworks).
    expect(run.stdout).toContain(
      'rocket     Rocket, v1\n  --param color=red|blue|green|white (default white)\n  --param countdown=0..10 (default 3)\n',
    );
    expect(run.stdout).toContain('notice     Notice, v1\n  no parameters\n');
    expect(run.stdout).toContain('fireworks  Fireworks, v1\n');
    const json = await notify(['scenes', '--json'], { env: using(service, account.token) });
    expect(JSON.parse(json.stdout).scenes.map((scene: { id: string }) => scene.id)).toEqual([
      'notice',
      'rocket',
      'fireworks',
      'garage',
      'campfire',
    ]);
  });

  it("with the account's key (NOTIFY_ACCOUNT_KEY), says when each device was last seen", async () => {
    const account = await createAccount(service);
    // A phone that linked itself, and whose app opened its inbox just now.
    const link = await call(`${service.url}/v1/link-requests`, '', {
      device_id: 'cli-test-phone-1',
      name: 'Linked phone',
      platform: 'ios',
      push_token: 'd'.repeat(63) + String(process.pid % 10),
    });
    await call(`${service.url}/v1/link-approvals`, account.key, { code: link.code });
    const polled = await fetch(`${service.url}/v1/link-requests/${link.id}`, {
      headers: { authorization: `Bearer ${link.secret}` },
    }).then((reply) => reply.json() as Promise<{ device_key: string }>);
    await fetch(`${service.url}/v1/inbox`, { headers: { authorization: `Bearer ${polled.device_key}` } });
    const env = { ...using(service, account.token), NOTIFY_ACCOUNT_KEY: account.key };
    const listed = await notify(['devices'], { env });
    expect(listed.stdout).toBe(
      "Ana's iPhone      ios       not seen yet\nAna's Watch       watchos   not seen yet\nAna's Vision Pro  visionos  not seen yet\nLinked phone      ios       seen just now\n",
    );
    // Never shown: the key. A key of the wrong shape is rejected before anything is sent.
    expect(listed.stdout + listed.stderr).not.toContain(account.key);
    const wrong = await notify(['devices'], { env: { ...env, NOTIFY_ACCOUNT_KEY: 'fox_acct_short' } });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).not.toContain('fox_acct_short');
  });

  it('lists the devices a send can target', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    expect((await notify(['devices'], { env })).stdout).toBe(
      "Ana's iPhone      ios\nAna's Watch       watchos\nAna's Vision Pro  visionos\n",
    );
    expect(JSON.parse((await notify(['devices', '--json'], { env })).stdout)).toEqual([
      { name: "Ana's iPhone", platform: 'ios' },
      { name: "Ana's Watch", platform: 'watchos' },
      { name: "Ana's Vision Pro", platform: 'visionos' },
    ]);
    // A second iPhone of the same name: both listed, and the name is no target.
    await call(`${service.url}/v1/devices`, account.key, {
      name: "Ana's iPhone",
      platform: 'ios',
      push_token: 'e'.repeat(64),
    });
    const twice = await notify(['devices'], { env });
    expect(twice.stdout).toBe(
      "Ana's iPhone      ios\nAna's Watch       watchos\nAna's Vision Pro  visionos\nAna's iPhone      ios\n",
    );
    expect(twice.stderr).toBe(
      `warning: 2 devices are named "Ana's iPhone": --target "Ana's iPhone" reaches none of them; rename one\n`,
    );
  });
});

describe('help, version and completion', () => {
  it('prints the version of the package', async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(await notify(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('answers --version and -v before the CLI and its parser load', async () => {
    const bin = fileURLToPath(new URL('../bin.cjs', import.meta.url));
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-v']) {
      // What the process loaded, written after bin.cjs returns.
      const probe = `process.argv = [process.argv[0], ${JSON.stringify(bin)}, ${JSON.stringify(flag)}];
        require(${JSON.stringify(bin)});
        process.on('exit', () => process.stderr.write(JSON.stringify(Object.keys(require.cache))));`;
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ['-e', probe]);
      expect(stdout).toBe(`${version}\n`);
      const loaded: string[] = JSON.parse(stderr);
      expect(loaded.filter((file) => /yargs|dist[\\/]main/.test(file))).toEqual([]);
    }
  });

  it("never reads a package.json of the folder it runs in: that one's is not its version", async () => {
    // A FIFO blocks whoever opens it for reading: a run that read it would never end.
    const folder = await tempDir();
    await promisify(execFile)('mkfifo', [join(folder, 'package.json')]);
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(await notify(['--version'], { cwd: folder })).toEqual({
      code: 0,
      stdout: `${version}\n`,
      stderr: '',
    });
  });

  it('has help with examples for every command', async () => {
    for (const command of ['send', 'status', 'scenes', 'devices', 'ci', 'run', 'login', 'config']) {
      const run = await notify([command, '--help']);
      expect(run.code, command).toBe(0);
      expect(run.stdout, command).toContain('Examples:');
    }
    expect((await notify(['--help'])).stdout).toContain('Exit codes: 0 sent');
  });

  it('prints a completion script that completes commands', async () => {
    const script = await notify(['completion', 'bash']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('complete -o default -F _notify_completions notify');
    const completions = await notify(['--get-yargs-completions', 'notify', 'st']);
    expect(completions.stdout.split('\n')).toContain('status');
  });
});

describe('on a terminal', () => {
  it('draws a spinner on stderr while it follows delivery, and none in CI', async () => {
    const account = await createAccount(service);
    const env = { ...process.env, ...using(service, account.token), CI: '', TERM: 'xterm' };
    // `script` runs notify on a pseudo-terminal, as a person's shell would.
    const command = `stty cols 100; ${process.execPath} ${NOTIFY_BIN} send hi --wait 20`;
    const onTerminal = await promisify(execFile)('script', ['-qec', command, '/dev/null'], { env });
    // A spinner hides the cursor while it spins and draws its frames over "Sending".
    const HIDE_CURSOR = '\u001b[?25l';
    expect(onTerminal.stdout).toContain(HIDE_CURSOR);
    expect(onTerminal.stdout).toMatch(/\S Sending/);
    expect(onTerminal.stdout).toContain('reached 3 of 3 devices');
    const inCi = await promisify(execFile)('script', ['-qec', command, '/dev/null'], {
      env: { ...env, CI: 'true' },
    });
    expect(inCi.stdout).not.toContain(HIDE_CURSOR);
    expect(inCi.stdout).not.toContain('Sending');
    expect(inCi.stdout).toContain('reached 3 of 3 devices');
  });
});
