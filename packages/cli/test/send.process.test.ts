import { describe, expect, it } from 'vitest';
import { call, createAccount, notify, pushesTo, sharedService, using } from './helpers.js';

const service = sharedService('relaxed');

const EVERY_FLAG = [
  'Deploy',
  'finished',
  '--title',
  'Release 1.2',
  '--subtitle',
  'api',
  '--scene',
  'rocket',
  '--scene-version',
  '1',
  '--param',
  'color=red',
  '--param',
  'countdown=5',
  '--bell-color',
  '#FF0000',
  '--url',
  'https://example.com/runs/1',
  '--url-title',
  'Open run',
  '--image',
  'https://example.com/i.png',
  '--level',
  'time-sensitive',
  '--group',
  'deploys',
  '--tag',
  'deploy-api',
  '--sound',
  'none',
  '--ttl',
  '600',
  '--target',
  'iphone',
  '--idempotency-key',
  'deploy-1',
];

describe('notify send', () => {
  it('maps every flag to its send field, typing scene parameters by the scene', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', ...EVERY_FLAG, '--dry-run', '--json'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      dry_run: true,
      request: {
        method: 'POST',
        url: `${service.url}/v1/notifications`,
        headers: {
          authorization: 'Bearer [redacted]',
          'user-agent': 'foxbell-sdk/0.1.0',
          'content-type': 'application/json',
          'idempotency-key': 'deploy-1',
        },
        body: {
          message: 'Deploy finished',
          title: 'Release 1.2',
          subtitle: 'api',
          scene: 'rocket',
          bell_color: '#FF0000',
          url: 'https://example.com/runs/1',
          url_title: 'Open run',
          image: 'https://example.com/i.png',
          level: 'time-sensitive',
          group: 'deploys',
          tag: 'deploy-api',
          sound: 'none',
          target: 'iphone',
          scene_version: 1,
          ttl: 600,
          scene_params: { color: 'red', countdown: 5 },
        },
      },
    });
    expect(run.stdout + run.stderr).not.toContain(account.token);
  });

  it('sends it: the iPhone gets the push with those fields, and the same key sends once', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const first = await notify(['send', ...EVERY_FLAG, '--json', '--wait', '20'], { env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result).toMatchObject({
      id: expect.stringMatching(/^ntf_/),
      status: 'accepted',
      request_id: expect.stringMatching(/^req_/),
      idempotency_key: 'deploy-1',
      rate_limit: { limit: 10000, remaining: 9999, reset: expect.any(Number) },
      delivery: {
        id: result.id,
        status: 'sent_to_push',
        destinations: [{ platform: 'ios', state: 'accepted', push_status: 200 }],
      },
    });
    const again = await notify(['send', ...EVERY_FLAG, '--quiet'], { env });
    expect(again).toEqual({ code: 0, stdout: `${result.id}\n`, stderr: '' });
    const pushes = await pushesTo(service, account.pushTokens[0]);
    expect(pushes).toHaveLength(1);
    expect(JSON.stringify(pushes[0])).toContain('Release 1.2');
    expect(await pushesTo(service, account.pushTokens[1])).toEqual([]);
  });

  it('prints a short line on success, and with --wait how many devices it reached', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const sent = await notify(['send', 'Build passed'], { env });
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^✓ Accepted “Build passed” as ntf_[A-Za-z0-9_-]+\n$/);
    const titled = await notify(['send', 'All green', '--title', 'Deploy'], { env });
    expect(titled.stdout).toMatch(/^✓ Accepted “Deploy” as ntf_\S+\n$/);
    const waited = await notify(['send', 'Build passed', '--wait'], { env });
    expect(waited.code).toBe(0);
    expect(waited.stdout).toMatch(
      /^✓ ntf_\S+ reached 3 of 3 devices; sent_to_push: Ana's iPhone reached \(200\), Ana's Watch reached \(200\), Ana's Vision Pro reached \(200\)\n$/,
    );
    // Without a terminal, each change of state is a plain line on stderr: no spinner.
    expect(waited.stderr).toMatch(
      /ntf_\S+: reached \d of 3 devices.*: sent_to_push: Ana's iPhone reached \(200\)/,
    );
    expect(waited.stderr).not.toContain('\u001b');
    expect(waited.stderr).not.toContain('Sending');
  });

  it('warns before sending when --target names none of the devices, and not for a name, keyword or id it cannot check', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const nobody = await notify(['send', 'hi', '--target', 'Bob’s iPhone'], { env });
    expect(nobody.code).toBe(0);
    expect(nobody.stderr).toBe(
      "warning: --target \"Bob’s iPhone\" names none of this account's devices (Ana's iPhone, Ana's Watch, Ana's Vision Pro): the notification will be dropped\n",
    );
    for (const target of ["Ana's Watch", 'watch', 'auto', 'dev_0123456789']) {
      expect((await notify(['send', 'hi', '--target', target], { env })).stderr, target).toBe('');
    }
    // A name two devices share reaches neither.
    await call(`${service.url}/v1/devices`, account.key, {
      name: "Ana's Watch",
      platform: 'watchos',
      push_token: 'f'.repeat(64),
    });
    expect((await notify(['send', 'hi', '--target', "Ana's Watch"], { env })).stderr).toBe(
      `warning: --target "Ana's Watch" is the name of 2 devices, so it reaches none: the notification will be dropped; give a device's id\n`,
    );
    // A token that may not list the devices: nothing to check against, no warning.
    const blind = await createAccount(service, { device_names: false });
    expect(
      (await notify(['send', 'hi', '--target', 'Nobody'], { env: using(service, blind.token) })).stderr,
    ).toBe('');
  });

  it('with --wait, waits for the responses of pushes still in flight once one device has it', async () => {
    const account = await createAccount(service);
    // The watch's push gets its response 1.5 s late: the iPhone's response makes it sent_to_push first.
    const script = await fetch(`${service.simUrl}/v1/tokens/${account.pushTokens[1]}/script`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers: [{ delay_ms: 1500 }] }),
    });
    expect(script.status).toBeLessThan(300);
    const waited = await notify(['send', 'Build passed', '--wait', '20'], {
      env: using(service, account.token),
    });
    expect(waited.code).toBe(0);
    expect(waited.stderr).toMatch(
      /ntf_\S+: reached 2 of 3 devices; 1 pending: sent_to_push: .*Ana's Watch being pushed/,
    );
    expect(waited.stdout).toMatch(
      /^✓ ntf_\S+ reached 3 of 3 devices; sent_to_push: Ana's iPhone reached \(200\), Ana's Watch reached \(200\), Ana's Vision Pro reached \(200\)\n$/,
    );
  });

  it('with --wait, names each device, says why one failed, and counts what is still pending when it runs out', async () => {
    const account = await createAccount(service);
    const script = (pushToken: string, answers: unknown[]) =>
      fetch(`${service.simUrl}/v1/tokens/${pushToken}/script`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ answers }),
      });
    const [iphone, watch, vision] = account.pushTokens as [string, string, string];
    // The watch is gone (410); the headset responds after the wait has run out.
    await script(watch, [{ status: 410, reason: 'Unregistered' }]);
    await script(vision, [{ delay_ms: 8000 }]);
    const env = using(service, account.token);
    const waited = await notify(['send', 'Build passed', '--wait', '3'], { env });
    // One device reached: a result, not a failure, with what is still pending counted.
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(
      /^… ntf_\S+ reached 1 of 3 devices; 1 pending; sent_to_push: Ana's iPhone reached \(200\), Ana's Watch failed \(410\): its notifications are turned off \(the push service says its subscription is gone\), Ana's Vision Pro being pushed\n$/,
    );
    // None reached when it ran out: exit 6, counted. (The watch, gone, is no longer one of them.)
    await script(iphone, [{ delay_ms: 8000 }]);
    await script(vision, [{ delay_ms: 8000 }]);
    const none = await notify(['send', 'Build passed', '--wait', '2'], { env });
    expect(none.code).toBe(6);
    expect(none.stderr).toMatch(/error: reached 0 of 2 devices; 2 pending after waiting 2 s\n/);
    // A token that may not read device names sees platforms.
    const blind = await createAccount(service, { device_names: false });
    const unnamed = await notify(['send', 'hi', '--wait', '20'], { env: using(service, blind.token) });
    expect(unnamed.stdout).toMatch(
      /reached 3 of 3 devices; sent_to_push: iPhone reached \(200\), Apple Watch reached \(200\), Vision Pro reached \(200\)\n$/,
    );
    const status = await notify(['status', /ntf_\S+/.exec(waited.stdout)?.[0] as string], { env });
    expect(status.stdout).toMatch(
      /^ntf_\S+ sent_to_push\n {2}Ana's iPhone reached \(200\), \S+\n {2}Ana's Watch failed \(410\): its notifications are turned off/,
    );
  }, 30_000);

  it('reads the message from a pipe, and from stdin with "-", without the newline that ends it', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    for (const args of [['send'], ['send', '-']]) {
      const run = await notify([...args, '--dry-run', '--json'], { env, input: 'line one\nline two\n\n' });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).request.body).toEqual({ message: 'line one\nline two' });
    }
  });

  it('ends with 7 when --wait sees the notification dropped, its record on stdout', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', 'hi', '--target', 'nobody', '--wait', '--json'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(7);
    expect(JSON.parse(run.stdout).delivery).toMatchObject({
      status: 'dropped',
      reason: 'no_matching_device',
    });
    // With --json the one document says it all: stderr stays empty.
    expect(run.stderr).toBe('');
    const human = await notify(['send', 'hi', '--target', 'nobody', '--wait'], {
      env: using(service, account.token),
    });
    expect(human.code).toBe(7);
    expect(human.stderr).toMatch(/error: ntf_\w+ will not arrive: it was dropped \(no_matching_device\)\n/);
    expect(human.stderr).toContain('next: No active device matches the target; see `notify devices`');
  });

  it('rejects a bad field before sending, with exit 2, the code, the field and what to do next', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', 'hi', '--scene', 'rocket', '--param', 'countdown=11'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('code: invalid_scene_param');
    expect(run.stderr).toContain('field: scene_params.countdown');
    expect(run.stderr).toContain(
      'next: rocket takes --param color=red|blue|green|white (default white), --param countdown=0..10 (default 3)',
    );
    expect(await pushesTo(service, account.pushTokens[0])).toEqual([]);
  });

  it('gives a JSON error document on stdout with --json', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', '--json', '--title', 'no message'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: 'missing_field', message: expect.any(String), field: 'message' },
      next: 'Add the field',
      exit_code: 2,
    });
  });

  it('answers a usage mistake with exit 2 and help, and runs nothing', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', 'hi', '--colour', 'red'], { env: using(service, account.token) });
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: Unknown argument: colour\n  Run `notify --help` for usage.\n',
    });
    expect(await pushesTo(service, account.pushTokens[0])).toEqual([]);
    const none = await notify([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Name a command');
  });

  it('takes --wait, --retries and --lines up to their limits, and rejects one past them with exit 2', async () => {
    const env = { NOTIFY_BASE_URL: service.url };
    const cases: [string[], string | undefined][] = [
      [['send', 'hi', '--wait', '3600'], undefined],
      [['send', 'hi', '--wait', '3601'], '--wait takes seconds, from 1 to 3600'],
      [['send', 'hi', '--wait', '0'], '--wait takes seconds, from 1 to 3600'],
      [['send', 'hi', '--retries', '3'], undefined],
      [['send', 'hi', '--retries', '4'], '--retries must be a whole number from 0 to 3'],
      [['send', 'hi', '--retries', '-1'], '--retries must be a whole number from 0 to 3'],
      [['run', '--lines', '1000', '--', process.execPath, '-e', ''], undefined],
      [
        ['run', '--lines', '1001', '--', process.execPath, '-e', ''],
        '--lines takes a whole number from 0 to 1000',
      ],
    ];
    for (const [args, error] of cases) {
      const run = await notify([args[0] as string, '--dry-run', ...args.slice(1)], { env });
      if (error === undefined) expect(run.code, args.join(' ')).toBe(0);
      else
        expect(run, args.join(' ')).toMatchObject({
          code: 2,
          stderr: expect.stringContaining(`error: ${error}`),
        });
    }
  });

  it('warns that --token may land in shell history, and never prints the token', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', 'hi', '--token', account.token, '--base-url', service.url, '--wait']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: a token given as --token may be saved in your shell history');
    expect(run.stdout + run.stderr).not.toContain(account.token);
  });

  it('colours only a terminal or FORCE_COLOR, and never under NO_COLOR', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const forced = await notify(['send', 'hi'], { env: { ...env, FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain('\u001b[32m✓\u001b[39m');
    const plain = await notify(['send', 'hi'], { env: { ...env, FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.stdout).toMatch(/^✓ Accepted/);
  });
});
