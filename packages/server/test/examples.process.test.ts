import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { send } from './helpers.js';
import { runScript, startServerWithToken, tempDir } from './processes.js';

/** Each example under examples/ run as its README says, against a real server. */
const EXAMPLES = fileURLToPath(new URL('../../../examples', import.meta.url));

const NODE_EXAMPLES = [
  ['send-from-node', 'send.mjs'],
  ['send-from-commonjs', 'send.js'],
] as const;

/** What a GitHub Actions job sets, for notify ci. */
const GITHUB_JOB = {
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'acme/api',
  GITHUB_REF_NAME: 'main',
  GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
  GITHUB_JOB: 'test',
  GITHUB_RUN_ID: '42',
  GITHUB_RUN_NUMBER: '7',
  GITHUB_SERVER_URL: 'https://github.com',
};

describe('examples', () => {
  it.each(NODE_EXAMPLES)(
    '%s says what is missing on one line when no token is set, and exits 1',
    async (dir, file) => {
      const run = await runScript(path.join(EXAMPLES, dir, file), [], {
        HOME: await tempDir(),
        NOTIFY_BASE_URL: 'http://127.0.0.1:8787',
      });
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: 'not sent: No token: pass { token } or set NOTIFY_TOKEN (invalid_config)\n',
      });
    },
  );

  it('send-from-node sends, then waits until every device was handed to push', async () => {
    const { server, token } = await startServerWithToken();
    const run = await runScript(path.join(EXAMPLES, 'send-from-node', 'send.mjs'), ['Backup finished'], {
      HOME: await tempDir(),
      NOTIFY_BASE_URL: server.url,
      NOTIFY_TOKEN: token,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^accepted ntf_\w+ \(\d+ sends left this month\)\nsent_to_push: ios accepted\n$/,
    );
  });

  it('send-from-commonjs sends through require()', async () => {
    const { server, token } = await startServerWithToken();
    const run = await runScript(path.join(EXAMPLES, 'send-from-commonjs', 'send.js'), ['Disk 91% full'], {
      HOME: await tempDir(),
      NOTIFY_BASE_URL: server.url,
      NOTIFY_TOKEN: token,
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const id = /^accepted (ntf_\w+)\n$/.exec(run.stdout)?.[1];
    const record = await send(server.url, 'GET', `/v1/notifications/${id}/status`, { token });
    expect(record.status).toBe(200);
  });

  it('ci-script keeps the command exit code and posts how it ended', async () => {
    const { server, token } = await startServerWithToken();
    const script = path.join(EXAMPLES, 'ci-script', 'notify-when-done.sh');
    const env = { ...GITHUB_JOB, HOME: await tempDir(), NOTIFY_BASE_URL: server.url, NOTIFY_TOKEN: token };
    const failed = await runScript(script, ['false'], env, undefined, 'bash');
    expect([failed.code, failed.stderr]).toEqual([1, '']);
    const id = /\b(ntf_\w+)\b/.exec(failed.stdout)?.[1];
    const record = await send(server.url, 'GET', `/v1/notifications/${id}/status`, { token });
    expect(record.status).toBe(200);
    const passed = await runScript(script, ['true'], env, undefined, 'bash');
    expect([passed.code, passed.stderr]).toEqual([0, '']);
  });

  it('ci-script warns without a token and still exits with the command code, as its README shows', async () => {
    const script = path.join(EXAMPLES, 'ci-script', 'notify-when-done.sh');
    // The README's session: `$ VARIABLES ./notify-when-done.sh ARGS`, what it printed, then `$ echo $?`
    // and the exit code.
    const readme = await readFile(path.join(EXAMPLES, 'ci-script', 'README.md'), 'utf8');
    const session =
      /```text\n\$ ((?:\w+=\S* )*)\.\/notify-when-done\.sh (.+)\n([\s\S]*?)\$ echo \$\?\n(\d+)\n```/.exec(
        readme,
      );
    if (!session) throw new Error("ci-script's README has no session to check");
    const [, assignments = '', args = '', printed, code] = session;
    const variables = Object.fromEntries(
      assignments
        .trim()
        .split(/\s+/)
        .map((pair) => pair.split('=') as [string, string]),
    );
    const run = await runScript(
      script,
      args.split(' '),
      { ...variables, HOME: await tempDir(), NOTIFY_BASE_URL: 'http://127.0.0.1:8787' },
      undefined,
      'bash',
    );
    expect(run).toEqual({ code: Number(code), stdout: '', stderr: printed });
    expect(printed).toBe(
      'warning: notification not sent: No send token\n  code: no_token\n  next: Set NOTIFY_TOKEN, or save one with `notify login`\n',
    );
  });

  it('testing-with-jest passes under jest and its fake timers, through the CommonJS build', async () => {
    const dir = path.join(EXAMPLES, 'testing-with-jest');
    const jest = path.join(dir, 'node_modules', 'jest', 'bin', 'jest.js');
    // jest keeps a cache in the system's temp folder unless told where: a folder of this test's.
    const run = await runScript(
      jest,
      ['--ci', '--json', '--cacheDirectory', await tempDir()],
      { HOME: await tempDir() },
      dir,
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      numPassedTests: number;
      numFailedTests: number;
      testResults: { assertionResults: { title: string; status: string }[] }[];
    };
    expect([report.numPassedTests, report.numFailedTests]).toEqual([4, 0]);
    expect(report.testResults[0]?.assertionResults.map((test) => test.title)).toEqual([
      'a good backup is a passive notification, tagged per host',
      'rides out two outages: the same bytes and key after 1 s, then 2 s',
      'a revoked token is reported at once, never retried',
      'gives up after the retries a dropped connection gets, in no real time',
    ]);
  });
});
