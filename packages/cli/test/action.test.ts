import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { SEND_FLAGS } from '../src/flags.js';
import { createAccount, NOTIFY_BIN, notify, pushesTo, type Service, startService, using } from './helpers.js';

const ACTION = fileURLToPath(new URL('../../../action.yml', import.meta.url));
const STEP = fileURLToPath(new URL('../action/notify-ci.sh', import.meta.url));

let service: Service;
beforeAll(async () => {
  service = await startService();
});

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

/** The action's step as GitHub runs it: the script, the inputs as INPUT_* variables, our built CLI for npx. */
async function step(inputs: Record<string, string>, account: { token: string }) {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...GITHUB,
    ...using(service, account.token),
    NOTIFY_COMMAND: `${process.execPath} ${NOTIFY_BIN}`,
    ...inputs,
  };
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', [STEP], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the GitHub Action', () => {
  it('has an input for each flag of notify ci, each handed to the step, and nothing else', async () => {
    const yaml = await readFile(ACTION, 'utf8');
    const inputs = [...(yaml.split('\nruns:')[0] ?? '').matchAll(/^ {2}([a-z-]+):$/gm)].map(
      (match) => match[1],
    );
    const handed = [...yaml.matchAll(/\$\{\{ inputs\.([a-z-]+) \}\}/g)].map((match) => match[1]);
    expect(handed.sort()).toEqual([...inputs].sort());
    const ciFlags = [...Object.keys(SEND_FLAGS), 'status'].map((flag) =>
      flag === 'param' ? 'params' : flag,
    );
    const own = ['token', 'base-url', 'version'];
    expect(inputs.filter((input) => !own.includes(input as string)).sort()).toEqual(ciFlags.sort());
    // And `notify ci` really takes those flags.
    const help = (await notify(['ci', '--help'])).stdout;
    for (const flag of ciFlags) expect(help).toContain(`--${flag === 'params' ? 'param' : flag} `);
  });

  it('turns the inputs into flags of notify ci', async () => {
    const account = await createAccount(service);
    const run = await step(
      {
        INPUT_STATUS: 'success',
        INPUT_PARAMS: 'countdown=7\ncolor=blue\n',
        INPUT_TARGET: 'watch',
        INPUT_TITLE: 'Release "1.2" $(touch /tmp/pwned)',
        INPUT_DRY_RUN: 'true',
        INPUT_FAIL_OPEN: 'true',
      },
      account,
    );
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout.trim().split('\n').at(-1) as string);
    expect(body).toMatchObject({
      title: 'Release "1.2" $(touch /tmp/pwned)',
      scene: 'rocket',
      scene_params: { countdown: 7, color: 'blue' },
      target: 'watch',
      url: 'https://github.com/acme/api/actions/runs/987654321',
    });
  });

  it('posts the result to the devices, and with fail-open never fails the job', async () => {
    const account = await createAccount(service);
    const sent = await step({ INPUT_STATUS: 'failure', INPUT_WAIT: '20' }, account);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/reached 3 devices/);
    const [push] = await pushesTo(service, account.pushTokens[0]);
    expect(JSON.stringify(push)).toContain('❌ acme/api: test failed');
    const down = await step({ INPUT_STATUS: 'success', NOTIFY_BASE_URL: 'http://127.0.0.1:9' }, account);
    expect(down.code).toBe(0);
    expect(down.stderr).toContain('warning: notification not sent');
  });
});
