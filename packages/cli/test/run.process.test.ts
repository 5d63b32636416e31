import { describe, expect, it } from 'vitest';
import { createAccount, notify, pushesTo, sharedService, using } from './helpers.js';

const service = sharedService();

/** A command of its own: node running a script, so the test does not depend on a shell. */
const node = (script: string) => [process.execPath, '-e', script];

async function pushedMessage(account: { pushTokens: string[] }): Promise<{ title: string; body: string }> {
  const [push] = await pushesTo(service, account.pushTokens[0] as string);
  return (push as { aps: { alert: { title: string; body: string } } }).aps.alert;
}

describe('notify run', () => {
  it("streams the command's output through, exits with its code and sends its result", async () => {
    const account = await createAccount(service);
    const script = `
      for (let i = 1; i <= 11; i++) console.log('line ' + i);
      console.log('\\u001b[31mline 12 in red\\u001b[0m');
      console.error('on stderr');
      process.exit(3);`;
    const run = await notify(['run', '--wait', '20', '--', ...node(script)], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(3);
    const expectedOutput = `${Array.from({ length: 11 }, (_, i) => `line ${i + 1}\n`).join('')}\u001b[31mline 12 in red\u001b[0m\n`;
    expect(run.stdout.startsWith(expectedOutput)).toBe(true);
    expect(run.stderr).toContain('on stderr\n');
    expect(run.stdout).toMatch(/✓ ntf_\S+ reached 3 of 3 devices/);
    const alert = await pushedMessage(account);
    expect(alert.title).toMatch(/^❌ .+ -e .+ failed \(exit 3\)$/);
    // How it ended, then the last 10 lines of output with the escapes removed. The two pipes
    // carry no order between them: where the stderr line falls is the system's choice.
    const [head, blank, ...tail] = alert.body.split('\n');
    expect(head).toMatch(/^Exit 3 after (\d+ ms|\d+\.\d s)$/);
    expect(blank).toBe('');
    expect(tail).toHaveLength(10);
    expect(tail.filter((line) => line !== 'on stderr')).toEqual(
      [...Array.from({ length: 11 }, (_, i) => `line ${i + 1}`), 'line 12 in red'].slice(
        tail.includes('on stderr') ? 3 : 2,
      ),
    );
  });

  it('reports a success with the success scene, and the send flags win', async () => {
    const account = await createAccount(service);
    const run = await notify(
      ['run', '--dry-run', '--json', '--title', 'Backup', '--lines', '0', '--', ...node('')],
      {
        env: using(service, account.token),
      },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).request.body).toEqual({
      scene: 'rocket',
      scene_params: { color: 'green' },
      level: 'active',
      bell_color: 'green',
      title: 'Backup',
      message: expect.stringMatching(/^Exit 0 after \d/),
    });
  });

  it("keeps the command's exit code when the notification cannot be sent", async () => {
    const run = await notify(['run', '--retries', '0', '--', ...node('process.exit(7)')], {
      env: { NOTIFY_BASE_URL: 'http://127.0.0.1:9', NOTIFY_TOKEN: `fox_send_${'a'.repeat(32)}` },
    });
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(/warning: notification not sent: .+\n {2}code: connection_error/);
  });

  it('runs the command even when notify has no token, and says so first', async () => {
    const run = await notify(['run', '--', ...node('console.log("ran")')], {
      env: { NOTIFY_BASE_URL: service.url },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('ran\n');
    expect(run.stderr).toMatch(/^warning: notification not sent: No send token/);
  });

  it('ends with 128 + n for a command killed by signal n, reported as stopped', async () => {
    const account = await createAccount(service);
    const run = await notify(['run', '--', ...node("process.kill(process.pid, 'SIGTERM')")], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(143);
    const { title } = await waitForAlert(account);
    expect(title).toMatch(/was stopped by SIGTERM$/);
    expect(title.startsWith('⏹️')).toBe(true);
  });

  it('ends with 127 for a command that does not exist, and says so in the notification', async () => {
    const account = await createAccount(service);
    const run = await notify(['run', '--', 'no-such-command-here', '--flag'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(127);
    expect(run.stderr).toContain('error: cannot run no-such-command-here: command not found');
    const { title } = await waitForAlert(account);
    expect(title).toBe('❌ no-such-command-here --flag could not start (command not found)');
  });

  it('needs a command after --', async () => {
    const run = await notify(['run', '--title', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Give the command to run after --');
  });
});

/** The first alert pushed to the iPhone, once delivery (asynchronous to a send without --wait) has pushed it. */
async function waitForAlert(account: { pushTokens: string[] }): Promise<{ title: string; body: string }> {
  for (let tries = 0; tries < 300; tries++) {
    const pushes = await pushesTo(service, account.pushTokens[0] as string);
    if (pushes.length > 0) return pushedMessage(account);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('nothing was pushed');
}
