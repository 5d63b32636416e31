import { freePort } from '@foxbell/test-support';
import { describe, expect, it } from 'vitest';
import { createAccount, notify, sharedService, using } from './helpers.js';

const service = sharedService();

describe('messages that say what to do', () => {
  it('lists the service’s scenes for a bogus --scene', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', 'hi', '--scene', 'lazer'], { env: using(service, account.token) });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: lazer is not in the scene catalog\n {2}code: invalid_scene \(HTTP 400\)\n {2}field: scene\n {2}request id: req_\w+\n {2}next: Scenes: notice, rocket, fireworks, garage, campfire \(`notify scenes` shows each one's parameters\)\n$/,
    );
  });

  it('says which scene or level a typo most likely meant', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const scene = await notify(['send', 'hi', '--scene', 'rockt'], { env });
    expect(scene.code).toBe(2);
    expect(scene.stderr).toContain(
      '  next: Did you mean rocket? Scenes: notice, rocket, fireworks, garage, campfire',
    );
    const level = await notify(['send', 'hi', '--level', 'activ'], { env });
    expect(level.code).toBe(2);
    expect(level.stderr).toBe(
      'error: level must be passive, active, time-sensitive, or an integer from -2 to 2\n  code: invalid_field\n  field: level\n  next: Did you mean active? Levels: passive, active, time-sensitive, or -2 to 2\n',
    );
    // Nothing near enough: no guess.
    const far = await notify(['send', 'hi', '--level', 'loud'], { env });
    expect(far.stderr).toContain('  next: Fix the field\n');
  });

  it('lists the scene’s parameters for an unknown or out-of-range --param, before sending', async () => {
    const env = using(service, `fox_send_${'Z'.repeat(32)}`);
    const unknown = await notify(['send', 'hi', '--scene', 'rocket', '--param', 'colour=red'], { env });
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      'error: scene_params.colour is not a parameter of this scene\n  code: invalid_scene_param\n  field: scene_params.colour\n  next: rocket takes --param color=red|blue|green|white (default white), --param countdown=0..10 (default 3)\n',
    ]);
    const none = await notify(['send', 'hi', '--scene', 'campfire', '--param', 'size=3'], { env });
    expect(none.stderr).toContain('next: campfire takes no parameters\n');
  });

  it('names the address a refused connection went to, says to run pnpm start for the local default, and that it retried only when it did', async () => {
    const token = `fox_send_${'Z'.repeat(32)}`;
    const local = await notify(['send', 'hi', '--retries', '0'], {
      env: { NOTIFY_BASE_URL: 'http://127.0.0.1:8787', NOTIFY_TOKEN: token },
    });
    // Unless this machine runs the service on its default port, which a test machine does not.
    expect([local.code, local.stderr]).toEqual([
      5,
      'error: Could not reach http://127.0.0.1:8787: connection refused (ECONNREFUSED)\n  code: connection_error\n  next: Is the local service running? Start it with `pnpm start` in the Foxbell repository\n',
    ]);
    const port = await freePort();
    const elsewhere = await notify(['send', 'hi', '--retries', '1'], {
      env: { NOTIFY_BASE_URL: `http://127.0.0.1:${port}`, NOTIFY_TOKEN: token },
    });
    expect(elsewhere.stderr).toMatch(
      /^warning: attempt 1 failed \(no connection\); retry 1 of 1 in 1\.\d s\n/,
    );
    expect(elsewhere.stderr).toContain(
      `error: Could not reach http://127.0.0.1:${port}: connection refused (ECONNREFUSED)\n  code: connection_error\n  next: Check the base URL and your network, or a proxy (HTTPS_PROXY) (tried 2 times)\n`,
    );
    expect(local.stderr).not.toMatch(/retried|tried \d/);
  });

  it('says to check the host name when it does not resolve', async () => {
    const run = await notify(['send', 'hi', '--retries', '0'], {
      env: { NOTIFY_BASE_URL: 'https://foxbell.invalid', NOTIFY_TOKEN: `fox_send_${'Z'.repeat(32)}` },
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      /^error: Could not reach https:\/\/foxbell\.invalid: its host name did not resolve \(DNS\) \((ENOTFOUND|EAI_AGAIN)\)\n {2}code: connection_error\n {2}next: Check the host name of the base URL, and your DNS\n$/,
    );
  });

  it('says a command is unknown before suggesting one', async () => {
    expect(await notify(['sned', 'hi'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: Unknown command "sned": did you mean send?\n  Run `notify --help` for usage.\n',
    });
    expect((await notify(['frobnicate'])).stderr).toBe(
      'error: Unknown command "frobnicate"; the commands are send, status, scenes, devices, ci, run, login, config, completion\n  Run `notify --help` for usage.\n',
    );
  });

  it('links --help to the homepage, not to a path inside the repository', async () => {
    const help = await notify(['--help']);
    expect(help.stdout).toContain('Reference: https://github.com/foxbell/foxbell/blob/main/docs/cli.md\n');
    expect(help.stdout).not.toMatch(/Reference: docs\//);
  });
});

describe('--json', () => {
  it('makes a failure one JSON document on stdout and nothing on stderr, warnings included', async () => {
    const token = `fox_send_${'Z'.repeat(32)}`;
    const port = await freePort();
    const run = await notify(['send', 'hi', '--json', '--retries', '1', '--token', token], {
      env: { NOTIFY_BASE_URL: `http://127.0.0.1:${port}` },
    });
    expect([run.code, run.stderr]).toEqual([5, '']);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        code: 'connection_error',
        message: `Could not reach http://127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
      },
      next: 'Check the base URL and your network, or a proxy (HTTPS_PROXY) (tried 2 times)',
      exit_code: 5,
      warnings: [
        'a token given as --token may be saved in your shell history; prefer NOTIFY_TOKEN or `notify login`',
        expect.stringMatching(/^attempt 1 failed \(no connection\); retry 1 of 1 in 1\.\d s$/),
      ],
    });
  });

  it('makes a usage mistake and an error one JSON document too', async () => {
    const usage = await notify(['sned', '--json']);
    expect([usage.code, usage.stderr, JSON.parse(usage.stdout)]).toEqual([
      2,
      '',
      { error: { code: 'usage', message: 'Unknown command "sned": did you mean send?' }, exit_code: 2 },
    ]);
    const account = await createAccount(service);
    const refused = await notify(['send', 'hi', '--scene', 'lazer', '--json'], {
      env: using(service, account.token),
    });
    expect([refused.code, refused.stderr]).toEqual([2, '']);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      error: { code: 'invalid_scene', field: 'scene' },
      request_id: expect.stringMatching(/^req_/),
      next: expect.stringContaining('Scenes: notice, rocket'),
      exit_code: 2,
    });
  });
});
