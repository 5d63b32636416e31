import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script of this package, in plain JavaScript.
import { ACTION_BUNDLE, bundleAction } from '../scripts/bundle-action.mjs';
import { argumentsOf } from '../src/action/run-action.js';
import { SEND_FLAGS } from '../src/flags.js';
import { createAccount, notify, pushesTo, sharedService, tempDir } from './helpers.js';

const ACTION = fileURLToPath(new URL('../../../action.yml', import.meta.url));
const BUNDLE = fileURLToPath(ACTION_BUNDLE as URL);

const service = sharedService();

const GITHUB = {
  CI: 'true',
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'acme/api',
  GITHUB_REF_NAME: 'main',
  GITHUB_SHA: '4e1c2f9a7b3d5e6f8a9b0c1d2e3f4a5b6c7d8e9f',
  GITHUB_JOB: 'test',
  GITHUB_WORKFLOW: 'CI',
  GITHUB_RUN_NUMBER: '42',
  GITHUB_RUN_ID: '987654321',
  GITHUB_SERVER_URL: 'https://github.com',
};

/**
 * The action as the runner runs it: `node <main>` with each input as INPUT_<NAME> (upper case,
 * hyphens kept), and the files for the step's outputs and the job summary.
 */
async function runAction(inputs: Record<string, string>, savedProfile?: Record<string, string>) {
  const dir = await tempDir();
  // A profile saved with `notify login` by the runner's user, where notify would look for it.
  if (savedProfile) {
    await mkdir(join(dir, '.config', 'foxbell'), { recursive: true });
    await writeFile(
      join(dir, '.config', 'foxbell', 'config.json'),
      JSON.stringify({ profiles: { default: savedProfile } }),
    );
  }
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    ...GITHUB,
    ...files,
    ...Object.fromEntries(
      Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
  };
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
    (resolve) =>
      execFile(process.execPath, [BUNDLE], { env, timeout: 60_000 }, (error, out, err) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
      ),
  );
  const read = (file: string) => readFile(file, 'utf8').catch(() => '');
  return {
    code,
    stdout,
    stderr,
    output: await read(files.GITHUB_OUTPUT),
    summary: await read(files.GITHUB_STEP_SUMMARY),
  };
}

describe('the GitHub Action', () => {
  it('is a JavaScript action on node24 whose inputs are the flags of notify ci, with its outputs', async () => {
    const yaml = await readFile(ACTION, 'utf8');
    expect(yaml).toContain('runs:\n  using: node24\n  main: packages/cli/action/notify-action.mjs\n');
    const section = (name: string) =>
      [...(yaml.split(`\n${name}:\n`)[1]?.split(/\n[a-z]+:\n/)[0] ?? '').matchAll(/^ {2}([a-z-]+):$/gm)].map(
        (match) => match[1],
      );
    const ciFlags = [...Object.keys(SEND_FLAGS), 'status'].map((flag) =>
      flag === 'param' ? 'params' : flag,
    );
    expect(section('inputs').sort()).toEqual([...ciFlags, 'token', 'base-url'].sort());
    expect(section('outputs')).toEqual(['id', 'request-id', 'idempotency-key', 'status', 'reached']);
    // And notify ci really takes those flags.
    const help = (await notify(['ci', '--help'])).stdout;
    for (const flag of ciFlags) expect(help).toContain(`--${flag === 'params' ? 'param' : flag} `);
  });

  it('is committed as one bundled file of the CLI of this commit (pnpm --filter @foxbell/cli action writes it)', async () => {
    const committed = await readFile(BUNDLE, 'utf8');
    expect(
      committed === (await bundleAction()),
      'packages/cli/action/notify-action.mjs is stale: run pnpm --filter @foxbell/cli action',
    ).toBe(true);
  });

  it('turns the inputs into flags of notify ci, one param a line, never through a shell', () => {
    expect(
      argumentsOf({
        INPUT_STATUS: 'success',
        INPUT_PARAMS: 'countdown=7\n color=blue \n\n',
        INPUT_TITLE: 'Release "1.2" $(touch /tmp/pwned)',
        'INPUT_SCENE-VERSION': '1',
        INPUT_WAIT: '30',
        'INPUT_DRY-RUN': 'true',
        'INPUT_FAIL-OPEN': 'false',
        INPUT_TARGET: '  ',
      }),
    ).toEqual([
      'ci',
      '--json',
      '--title',
      'Release "1.2" $(touch /tmp/pwned)',
      '--scene-version',
      '1',
      '--status',
      'success',
      '--param',
      'countdown=7',
      '--param',
      'color=blue',
      '--wait=30',
      '--dry-run',
    ]);
    expect(argumentsOf({ INPUT_WAIT: '0' })).toEqual(['ci', '--json', '--fail-open']);
  });

  it('masks the token, posts the result, writes the outputs and a summary line', async () => {
    const account = await createAccount(service);
    const run = await runAction({
      token: account.token,
      'base-url': service.url,
      status: 'failure',
      wait: '20',
    });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const [mask, ...rest] = run.stdout.split('\n');
    expect(mask).toBe(`::add-mask::${account.token}`);
    expect(rest.join('\n')).not.toContain(account.token);
    expect(rest.join('\n')).toMatch(
      /^Sent "❌ acme\/api: test failed" as ntf_\w+ \(req_\w+\): sent_to_push, reached 3 of 3 devices\n$/,
    );
    const outputs = Object.fromEntries(
      run.output
        .trim()
        .split('\n')
        .map((line) => line.split('=')),
    );
    expect(outputs).toEqual({
      id: expect.stringMatching(/^ntf_\w+$/),
      'request-id': expect.stringMatching(/^req_\w+$/),
      'idempotency-key': expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'sent_to_push',
      reached: '3',
    });
    expect(run.summary).toBe(
      `Foxbell: sent “❌ acme/api: test failed” (${outputs.id}): sent_to_push, reached 3 of 3 devices\n`,
    );
    const [push] = await pushesTo(service, account.pushTokens[0]);
    expect(JSON.stringify(push)).toContain('❌ acme/api: test failed');
  });

  it('names each device that will not get it, with why: a warning with fail-open, an error that fails the step without', async () => {
    /** An account whose iPhone APNs says is gone (410 Unregistered), and the action's inputs for it. */
    const goneIphone = async () => {
      const account = await createAccount(service);
      const scripted = await fetch(`${service.simUrl}/v1/tokens/${account.pushTokens[0]}/script`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ answers: [{ status: 410, reason: 'Unregistered' }] }),
      });
      expect(scripted.status).toBe(204);
      return {
        token: account.token,
        'base-url': service.url,
        status: 'failure',
        target: 'iphone',
        wait: '30',
      };
    };
    const words =
      "Ana's iPhone will not get it: its notifications are turned off (the push service says its subscription is gone); open Foxbell on it to turn notifications on again";
    const open = await runAction(await goneIphone());
    expect([open.code, open.stderr]).toEqual([0, '']);
    expect(open.stdout).toMatch(
      new RegExp(
        `\\nSent "❌ acme/api: test failed" as ntf_\\w+ \\(req_\\w+\\): accepted, reached 0 of 1 device\\n::warning::Foxbell: ${escapeRegExp(words)}\\n$`,
      ),
    );
    expect(open.output).toMatch(/\nstatus=accepted\nreached=0\n$/);
    expect(open.summary).toMatch(
      new RegExp(
        `^Foxbell: sent “❌ acme/api: test failed” \\(ntf_\\w+\\): accepted, reached 0 of 1 device\\n\\n- ${escapeRegExp(words)}\\n$`,
      ),
    );
    const closed = await runAction({ ...(await goneIphone()), 'fail-open': 'false' });
    expect(closed.code).toBe(7);
    expect(closed.stdout).toContain(`\n::error::Foxbell: ${words}\n`);
  }, 30_000);

  it('with fail-open (the default) a service that is down warns and passes; without, it fails the step', async () => {
    const account = await createAccount(service);
    const down = { token: account.token, 'base-url': 'http://127.0.0.1:9', status: 'success', wait: '0' };
    // Each run retries the unreachable service for about 7 s (the SDK's waits of 1, 2 and 4 s):
    // the two side by side.
    const [open, closed] = await Promise.all([runAction(down), runAction({ ...down, 'fail-open': 'false' })]);
    expect(open.code).toBe(0);
    expect(open.stdout).toContain('::warning::Notification not sent: Could not reach http://127.0.0.1:9');
    expect(open.output).toBe('');
    expect(open.summary).toMatch(
      /^Foxbell: the notification was not sent: Could not reach http:\/\/127\.0\.0\.1:9/,
    );
    expect(closed.code).toBe(5);
    expect(closed.stdout).toContain('::error::Notification not sent: Could not reach http://127.0.0.1:9');
  });

  it("reads no profile: an empty token or base-url input (a fork's pull request) sends nothing, even where a saved profile could", async () => {
    const account = await createAccount(service);
    const saved = { token: account.token, 'base-url': service.url };
    const cases: [Record<string, string>, string][] = [
      [{ token: '', 'base-url': service.url }, 'the `token` input is empty'],
      [{ token: account.token, 'base-url': ' ' }, 'the `base-url` input is empty'],
      [{}, 'the `token` and `base-url` inputs are empty'],
    ];
    for (const [inputs, what] of cases) {
      const run = await runAction({ ...inputs, status: 'success', wait: '0' }, saved);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        `::warning::Notification not sent: ${what} (a workflow run from a fork's pull request gets no secrets)`,
      );
      expect(run.summary).toBe(`Foxbell: the notification was not sent: ${what}\n`);
    }
    const closed = await runAction(
      { 'base-url': service.url, status: 'success', 'fail-open': 'false' },
      saved,
    );
    expect(closed.code).toBe(2);
    expect(closed.stdout).toContain('::error::Notification not sent: the `token` input is empty');
    expect(await pushesTo(service, account.pushTokens[0] as string)).toEqual([]);
  });

  it('shows the request of a dry run and sends nothing', async () => {
    const account = await createAccount(service);
    const run = await runAction({
      token: account.token,
      'base-url': service.url,
      status: 'success',
      params: 'countdown=7\ncolor=blue',
      'dry-run': 'true',
    });
    expect(run.code).toBe(0);
    const request = JSON.parse(run.stdout.split('The request would be:\n')[1] as string);
    expect(request.body).toMatchObject({ scene: 'rocket', scene_params: { countdown: 7, color: 'blue' } });
    expect(request.headers.authorization).toBe('Bearer [redacted]');
    expect(await pushesTo(service, account.pushTokens[0])).toEqual([]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
