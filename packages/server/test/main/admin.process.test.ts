import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '@foxbell/test-support/ports';
import { LocalPushService } from '@foxbell/test-support/web-push-service';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN, BIN, runScript, startProcess, startQuietServer, tempDir } from '../processes.js';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** `foxbell-server admin …` run as a process, as an operator would. */
const admin = (args: string[], env: Record<string, string> = {}) => runScript(BIN, ['admin', ...args], env);

describe('foxbell-server admin', () => {
  it('manages accounts, tokens, devices and the pause of a running server, printing each secret once', async () => {
    const server = await startQuietServer();
    const base = { FOXBELL_BASE_URL: server.url };

    // The key from a file (a systemd credential, a container secret), out of the process list.
    const keyFile = path.join(await tempDir(), 'admin-key');
    await writeFile(keyFile, `${ADMIN}\n`, { mode: 0o600 });
    const account = await admin(['account', 'create', '--name', 'Home', '--admin-key-file', keyFile], base);
    expect([account.code, account.stderr]).toEqual([0, '']);
    const [, accountId, accountKey] =
      /^account (acct_\w+) created\n {2}key: +(fox_acct_\w+) \(shown once: keep it now\)\n {2}generation: 1\n$/.exec(
        account.stdout,
      ) ?? [];
    expect(accountKey).toBeDefined();
    const asAccount = { ...base, FOXBELL_ACCOUNT_KEY: accountKey as string };

    const token = await admin(['token', 'create', '--name', 'CI', '--scenes', 'rocket,garage'], asAccount);
    expect(token.code).toBe(0);
    const [, tokenId, secret] =
      /^token (tok_\w+) created\n {2}token: (fox_send_\w+) \(shown once/.exec(token.stdout) ?? [];
    expect(token.stdout).toContain('  scenes: rocket, garage\n');
    const list = await admin(['token', 'list'], asAccount);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID +NAME +KIND +STATE +CREATED$/);
    expect(list.stdout).toMatch(new RegExp(`^${tokenId} +CI +standard +live +\\d{4}-`, 'm'));
    // Never again: not in a list, not in its JSON.
    expect(list.stdout).not.toContain(secret);
    expect((await admin(['token', 'list', '--json'], asAccount)).stdout).not.toContain(secret);

    const device = await admin(
      ['device', 'add', '--name', 'Phone', '--platform', 'ios', '--push-token', 'ab'.repeat(32)],
      asAccount,
    );
    expect(device.stdout).toMatch(/^device dev_\w+ added\n {2}name: +Phone\n {2}platform: ios\n$/);
    expect((await admin(['device', 'list'], asAccount)).stdout).toMatch(
      /^dev_\w+ +Phone +ios +APNs +yes +active +not seen yet$/m,
    );
    // A device that asked to be linked, approved from the operator's side by the code it shows.
    const link = await send(server.url, 'POST', '/v1/link-requests', {
      json: { device_id: 'admin-test-1', name: 'Tablet', platform: 'ios', push_token: 'cd'.repeat(32) },
    });
    const linked = await admin(['link', 'approve', link.body.code.toLowerCase()], asAccount);
    expect(linked.stdout).toMatch(/^device dev_\w+ linked\n {2}name: +Tablet\n {2}platform: ios\n$/);
    // The tablet's app takes its key and opens its inbox: seen, in words.
    const polled = await send(server.url, 'GET', `/v1/link-requests/${link.body.id}`, {
      token: link.body.secret,
    });
    await send(server.url, 'GET', '/v1/inbox', { token: polled.body.device_key });
    expect((await admin(['device', 'list'], asAccount)).stdout).toMatch(
      /^dev_\w+ +Tablet +ios +APNs +yes +active +seen just now$/m,
    );
    // Another account merged into this one, its key read from a file.
    const other = await admin(['account', 'create', '--json', '--admin-key-file', keyFile], base);
    const otherKeyFile = path.join(await tempDir(), 'other.key');
    await writeFile(otherKeyFile, `${JSON.parse(other.stdout).key}\n`);
    const mergedIn = await admin(['account', 'merge', '--merge-key-file', otherKeyFile], asAccount);
    expect(mergedIn.stdout).toMatch(/^merged into account acct_\w+\n {2}group: acct_\w+, acct_\w+\n$/);
    expect(mergedIn.stdout).not.toContain(JSON.parse(other.stdout).key);
    const wrong = await admin(['link', 'approve', 'ZZZZ-ZZZZ'], asAccount);
    // A code no request has is a mistake in what was typed: exit 2, in the web app's words, with
    // its code and field.
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      expect.stringMatching(
        /^error: No device is showing that code\. Check it: codes have no 0, O, 1, I or L\.\n {2}code: not_found\n {2}field: code\n/,
      ),
    ]);

    // The pause, as every sender sees it.
    const pause = await admin(['pause', '--retry-after', '12', '--admin-key', ADMIN], base);
    // Given as a flag, it works, and the operator is told who else can read it.
    expect(pause.stderr).toBe(
      'warning: --admin-key on the command line can be read by every user of this machine (ps, /proc); give --admin-key-file FILE or FOXBELL_ADMIN_KEY instead\n',
    );
    expect(pause.stdout).toBe('sends paused; clients are told to retry after 12 s\n');
    const paused = await send(server.url, 'POST', '/v1/notifications', {
      token: secret as string,
      json: { message: 'm', scene: 'rocket' },
    });
    expect([paused.status, paused.headers.get('retry-after')]).toEqual([503, '12']);
    expect((await admin(['resume'], { ...base, FOXBELL_ADMIN_KEY: ADMIN })).stdout).toBe('sends resumed\n');
    expect(
      (
        await send(server.url, 'POST', '/v1/notifications', {
          token: secret as string,
          json: { message: 'm', scene: 'rocket' },
        })
      ).status,
    ).toBe(202);

    expect((await admin(['token', 'revoke', tokenId as string], asAccount)).stdout).toBe(
      `token ${tokenId} revoked\n`,
    );
    const rotated = await admin(['account', 'rotate-key', '--json'], asAccount);
    expect(JSON.parse(rotated.stdout)).toMatchObject({
      key: expect.stringMatching(/^fox_acct_/),
      generation: 2,
    });
    const newKey = JSON.parse(rotated.stdout).key as string;
    expect((await admin(['account', 'delete'], { ...base, FOXBELL_ACCOUNT_KEY: newKey })).stdout).toBe(
      'account deleted\n',
    );
    expect(accountId).toMatch(/^acct_/);
  }, 60_000);

  it('lists why each inactive device is inactive, in words with what to do, and in --json; the log says what its push service did', async () => {
    // A Web Push service of the test's own, trusted by the server as a private CA would be.
    let serverUrl = '';
    const push = await LocalPushService.start({
      vapidKey: async () => (await (await fetch(`${serverUrl}/v1/web-push/key`)).json()).public_key,
    });
    closing.push(() => push.close());
    const caFile = path.join(await tempDir(), 'push-ca.pem');
    await writeFile(caFile, push.ca);
    const server = await startProcess(
      [
        ...['--data', await tempDir(), '--log-level', 'warn', '--apns-sim-control'],
        ...['--web-push-hosts', push.host, '--web-push-subject', 'mailto:ops@example.com'],
      ],
      { FOXBELL_ADMIN_KEY: ADMIN, NODE_EXTRA_CA_CERTS: caFile },
    );
    serverUrl = server.url;
    const control = /APNs simulator control API on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string;
    const account = async () =>
      (await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} })).body;
    const ana = await account();
    const bob = await account();
    const register = async (key: string, name: string, address: Record<string, unknown>) => {
      const reply = await send(server.url, 'POST', '/v1/devices', {
        token: key,
        json: { name, platform: 'ios', ...address },
      });
      expect(reply.status, reply.text).toBe(201);
      return reply.body.id as string;
    };
    const desk = await register(ana.key, 'Desk', { push_token: 'd1'.repeat(32) });
    const ipad = await register(ana.key, 'Kitchen iPad', { push_token: 'd2'.repeat(32) });
    const old = await register(ana.key, 'Old phone', { push_token: 'd3'.repeat(32) });
    const watch = await register(ana.key, 'Watch', { push_token: 'd4'.repeat(32) });
    const subscription = push.subscribe();
    const webApp = await register(ana.key, 'iPhone web app', { web_push: subscription });
    // Ana removes the iPad; Bob registers the old phone; APNs forgets the watch's token; the
    // iPhone drops its subscription.
    expect((await send(server.url, 'DELETE', `/v1/devices/${ipad}`, { token: ana.key })).status).toBe(204);
    await register(bob.key, "Bob's phone", { push_token: 'd3'.repeat(32) });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await send(control, 'POST', `/v1/tokens/${'d4'.repeat(32)}/unregister`, { json: {} });
    push.unsubscribe(subscription);
    const token = (await send(server.url, 'POST', '/v1/tokens', { token: ana.key, json: { name: 'CI' } }))
      .body.token as string;
    const sent = await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hello' } });
    expect(sent.status).toBe(202);
    const deadline = Date.now() + 20_000;
    let record = (await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, { token })).body;
    while (
      Date.now() < deadline &&
      (record.destinations.length < 3 ||
        record.destinations.some((d: { state: string }) => ['pending', 'sending'].includes(d.state)))
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = (await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, { token })).body;
    }
    expect(
      record.destinations.map((d: Record<string, unknown>) => [d.name, d.state, d.push_status, d.reason]),
    ).toEqual([
      ['Desk', 'accepted', 200, undefined],
      ['Watch', 'failed_permanent', 410, 'gone'],
      ['iPhone web app', 'failed_permanent', 410, 'gone'],
    ]);

    const asAna = { FOXBELL_BASE_URL: server.url, FOXBELL_ACCOUNT_KEY: ana.key };
    const list = await admin(['device', 'list'], asAna);
    expect([list.code, list.stderr]).toEqual([0, '']);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines.slice(1, 6).map((line) => line.split(/ {2,}/).slice(0, 6))).toEqual([
      [desk, 'Desk', 'ios', 'APNs', 'yes', 'active'],
      [ipad, 'Kitchen iPad', 'ios', 'APNs', 'yes', 'removed'],
      [old, 'Old phone', 'ios', 'APNs', 'yes', 'moved'],
      [watch, 'Watch', 'ios', 'APNs', 'yes', 'unregistered'],
      [webApp, 'iPhone web app', 'ios', 'Web Push', 'yes', 'subscription gone'],
    ]);
    expect(lines.slice(6)).toEqual([
      '',
      `Old phone (${old}): another account registered it; it now receives that account’s notifications; link it again to move it back`,
      `Watch (${watch}): Apple says its push token is no longer valid; open the app on it so it registers again`,
      `iPhone web app (${webApp}): its notifications were turned off or its subscription was dropped; open Foxbell on it to turn notifications on again`,
    ]);
    const json = JSON.parse((await admin(['device', 'list', '--json'], asAna)).stdout);
    expect(
      json.devices.map((device: Record<string, unknown>) => [
        device.name,
        device.active,
        device.inactive_reason,
      ]),
    ).toEqual([
      ['Desk', true, undefined],
      ['Kitchen iPad', false, 'removed'],
      ['Old phone', false, 'moved'],
      ['Watch', false, 'unregistered'],
      ['iPhone web app', false, 'subscription_gone'],
    ]);

    // The operator's log: each push that will not arrive, and each device a push service made inactive.
    const warnings = server
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((line) => line.level === 40)
      .map(({ time: _time, pid: _pid, hostname: _hostname, ...line }) => line);
    const failed = {
      level: 40,
      msg: 'a push will not arrive',
      notification_id: sent.body.id,
      reason: 'gone',
      push_status: 410,
    };
    const madeInactive = {
      level: 40,
      msg: 'a push service made a device inactive',
      notification_id: sent.body.id,
      push_status: 410,
    };
    expect(warnings).toEqual(
      expect.arrayContaining([
        { ...failed, device_id: watch, provider: 'apns', push_reason: 'Unregistered' },
        { ...madeInactive, device_id: watch, provider: 'apns', inactive_reason: 'unregistered' },
        { ...failed, device_id: webApp, provider: 'web-push', host: push.host },
        { ...madeInactive, device_id: webApp, provider: 'web-push', inactive_reason: 'subscription_gone' },
      ]),
    );
    expect(warnings).toHaveLength(4);
  }, 60_000);

  it('names the code and field of an error, exits as notify does, and with --json writes only the response', async () => {
    const server = await startQuietServer();
    const base = { FOXBELL_BASE_URL: server.url };
    const key = (await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} })).body
      .key as string;
    const bad = ['device', 'add', '--name', 'X', '--platform', 'android', '--push-token', 'ab'.repeat(32)];
    // A port nothing listens on (below the system's range: no other test's server takes it meanwhile).
    const port = await freePort();

    // Commands that change nothing, each on its own: run side by side.
    const [refused, asJson, wrongKey, withoutKey, unreachable, unknownCommand, help] = await Promise.all([
      admin(bad, { ...base, FOXBELL_ACCOUNT_KEY: key }),
      admin([...bad, '--json'], { ...base, FOXBELL_ACCOUNT_KEY: key }),
      admin(['token', 'list'], { ...base, FOXBELL_ACCOUNT_KEY: 'fox_acct_nope' }),
      admin(['token', 'list'], base),
      admin(['token', 'list', '--base-url', `http://127.0.0.1:${port}`], { FOXBELL_ACCOUNT_KEY: key }),
      admin(['token', 'mint'], base),
      admin(['--help']),
    ]);
    expect([refused.code, refused.stdout]).toEqual([2, '']);
    expect(refused.stderr).toMatch(
      /^error: .+\n {2}code: invalid_field\n {2}field: platform\n {2}request: req_\w+\n$/,
    );
    expect([asJson.code, asJson.stderr]).toEqual([2, '']);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ error: { code: 'invalid_field', field: 'platform' } });

    expect([wrongKey.code, wrongKey.stderr]).toEqual([3, expect.stringMatching(/code: unauthorized/)]);
    expect(wrongKey.stderr).not.toContain('fox_acct_nope');
    expect(withoutKey).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: token list needs --account-key (or FOXBELL_ACCOUNT_KEY)\n  next: foxbell-server admin token list --help\n',
    });
    expect([unreachable.code, unreachable.stderr]).toEqual([
      5,
      `error: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n  next: is foxbell-server running there? (--base-url, FOXBELL_BASE_URL)\n`,
    ]);
    expect(unknownCommand.code).toBe(2);
    expect([help.code, help.stdout]).toEqual([
      0,
      expect.stringContaining('  token create          make a send token; prints it once\n'),
    ]);
  }, 30_000);

  it('rejects a key with a character no key has (a placeholder pasted as is) in words about the key, not as a server out of reach', async () => {
    const server = await startQuietServer();
    const base = { FOXBELL_BASE_URL: server.url };
    const placeholderKey = { ...base, FOXBELL_ACCOUNT_KEY: 'fox_acct_…' };
    const spaced = path.join(await tempDir(), 'admin-key');
    await writeFile(spaced, 'paste the admin key of /etc/foxbell here\n');
    // Each refused on its own: run side by side.
    const [placeholder, placeholderJson, spacedKey] = await Promise.all([
      admin(['token', 'create', '--name', 'CI'], placeholderKey),
      admin(['token', 'list', '--json'], placeholderKey),
      admin(['account', 'create', '--admin-key-file', spaced], base),
    ]);
    expect(placeholder).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --account-key (FOXBELL_ACCOUNT_KEY) holds "…" (U+2026), which no key has: give the whole key `admin account create` printed, not a placeholder such as fox_acct_…\n' +
        '  next: foxbell-server admin token create --help\n',
    });
    expect([placeholderJson.code, placeholderJson.stderr]).toEqual([2, '']);
    expect(JSON.parse(placeholderJson.stdout)).toEqual({
      error: {
        code: 'usage',
        message: expect.stringMatching(/^--account-key \(FOXBELL_ACCOUNT_KEY\) holds "…"/),
      },
    });
    expect(spacedKey).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --admin-key (FOXBELL_ADMIN_KEY) holds a space, which no key has (make one: openssl rand -base64 32)\n' +
        '  next: foxbell-server admin account create --help\n',
    });
  });

  it('words a wrong link code as the web app does, with its code, field and request id', async () => {
    const server = await startQuietServer();
    const key = (await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} })).body
      .key as string;
    const asAccount = { FOXBELL_BASE_URL: server.url, FOXBELL_ACCOUNT_KEY: key };
    const approve = (code: string, ...flags: string[]) =>
      admin(['link', 'approve', code, ...flags], asAccount);

    const unknown = await approve('K7QM-3XPA');
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toMatch(
      /^error: No device is showing that code\. Check it: codes have no 0, O, 1, I or L\.\n {2}code: not_found\n {2}field: code\n {2}request: req_\w+\n$/,
    );
    // A code with a letter no code has (a zero for an O) is a wrong code too, worded the same.
    const misspelt = await approve('K7QM-3XP0');
    expect([misspelt.code, misspelt.stderr.split('\n')[0]]).toEqual([2, unknown.stderr.split('\n')[0]]);
    // With --json, the API's response as it is.
    const asJson = await approve('K7QM-3XPA', '--json');
    expect([asJson.code, asJson.stderr]).toEqual([2, '']);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ error: { code: 'not_found', field: 'code' } });
    // The sixth wrong code in 10 minutes is rejected with the approver locked, said with its wait.
    for (let wrong = 0; wrong < 2; wrong += 1) expect((await approve('K7QM-3XPA')).code).toBe(2);
    const locked = await approve('K7QM-3XPA');
    expect([locked.code, locked.stdout]).toEqual([4, '']);
    expect(locked.stderr).toMatch(
      /^error: Too many wrong codes\. You can approve again in (a minute|\d+ minutes)\.\n {2}code: link_locked\n {2}request: req_\w+\n$/,
    );
  });
});
