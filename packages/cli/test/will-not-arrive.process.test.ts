import { describe, expect, it } from 'vitest';
import { type Account, createAccount, notify, sharedService, using } from './helpers.js';

/**
 * A push that cannot arrive is told at once: `--wait` ends as soon as no device can get the
 * notification, names each device and why with what to do, and exits 7; a device some pushes
 * reached and others did not is a warning. The push services are the server's APNs simulator,
 * scripted to respond with `410 Unregistered` as APNs does for a token no longer valid.
 */
const service = sharedService('relaxed');

/** The simulator responds to the next pushes to this device with these responses. */
async function script(pushToken: string, answers: unknown[]): Promise<void> {
  const response = await fetch(`${service.simUrl}/v1/tokens/${pushToken}/script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ answers }),
  });
  expect(response.status).toBe(204);
}

const UNREGISTERED = { status: 410, reason: 'Unregistered' };
const GONE =
  'its notifications are turned off (the push service says its subscription is gone); open Foxbell on it to turn notifications on again';

/** An account whose iPhone APNs says is gone: `--target iphone` reaches it alone. */
async function goneIphone(): Promise<Account & { env: Record<string, string> }> {
  const account = await createAccount(service);
  await script(account.pushTokens[0], [UNREGISTERED]);
  return { ...account, env: using(service, account.token) };
}

describe('--wait when no device can get it', () => {
  it('notify send ends at once with 7, naming the device, why, and what to do', async () => {
    const { env } = await goneIphone();
    // A wait of 60 s that ends with 7, within the test's limit of 30 s: it did not wait it out.
    const run = await notify(['send', 'Build failed', '--target', 'iphone', '--wait', '60'], { env });
    expect(run.code).toBe(7);
    expect(run.stdout).toMatch(
      /^✗ ntf_\w+ reached 0 of 1 device; accepted: Ana's iPhone failed \(410\): its notifications are turned off \(the push service says its subscription is gone\)\n$/,
    );
    const id = /ntf_\w+/.exec(run.stdout)?.[0];
    expect(
      run.stderr.endsWith(
        `error: ${id} will not arrive: no device can get it\n  Ana's iPhone: ${GONE}\n  code: undeliverable\n`,
      ),
    ).toBe(true);
    expect(run.stderr).not.toMatch(/wait longer/i);
  }, 30_000);

  it('says only the error with --quiet, and the record with --json (stderr empty), each with 7', async () => {
    const { env } = await goneIphone();
    const quiet = await notify(['send', 'Build failed', '--target', 'iphone', '--wait', '--quiet'], { env });
    expect(quiet.code).toBe(7);
    expect(quiet.stdout).toMatch(/^ntf_\w+\n$/);
    expect(quiet.stderr).toBe(
      `error: ${quiet.stdout.trim()} will not arrive: no device can get it\n  Ana's iPhone: ${GONE}\n  code: undeliverable\n`,
    );

    const gone = await goneIphone();
    const json = await notify(['send', 'Build failed', '--target', 'iphone', '--wait', '--json'], {
      env: gone.env,
    });
    expect([json.code, json.stderr]).toEqual([7, '']);
    expect(JSON.parse(json.stdout).delivery).toEqual({
      id: expect.stringMatching(/^ntf_\w+$/),
      status: 'accepted',
      destinations: [
        expect.objectContaining({
          name: "Ana's iPhone",
          platform: 'ios',
          state: 'failed_permanent',
          push_status: 410,
          reason: 'gone',
        }),
      ],
      handled: [],
    });
  }, 30_000);

  it('names a device by its platform where the token may not read names', async () => {
    const account = await createAccount(service, { device_names: false });
    await script(account.pushTokens[0], [UNREGISTERED]);
    const run = await notify(['send', 'hi', '--target', 'iphone', '--wait', '--quiet'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(`\n  iPhone: ${GONE}\n`);
  }, 30_000);

  it('notify status --wait of a notification no device can get: 7 at once; without --wait, the record and 0', async () => {
    const { env } = await goneIphone();
    const sent = await notify(['send', 'hi', '--target', 'iphone', '--wait', '--quiet'], { env });
    const id = sent.stdout.trim();
    const waited = await notify(['status', id, '--wait', '60'], { env });
    expect(waited.code).toBe(7);
    expect(waited.stdout).toMatch(
      new RegExp(
        `^${id} accepted\\n  Ana's iPhone failed \\(410\\): its notifications are turned off \\(the push service says its subscription is gone\\), \\S+\\n$`,
      ),
    );
    expect(
      waited.stderr.endsWith(
        `error: ${id} will not arrive: no device can get it\n  Ana's iPhone: ${GONE}\n  code: undeliverable\n`,
      ),
    ).toBe(true);
    const read = await notify(['status', id], { env });
    expect([read.code, read.stderr, read.stdout]).toEqual([0, '', waited.stdout]);
  }, 30_000);

  it('every device failed, each for its own reason: each named with its own advice', async () => {
    const account = await createAccount(service);
    await script(account.pushTokens[0], [UNREGISTERED]);
    await script(account.pushTokens[1], [{ status: 400, reason: 'BadDeviceToken' }]);
    await script(account.pushTokens[2], [UNREGISTERED]);
    const run = await notify(['send', 'hi', '--wait', '--quiet'], { env: using(service, account.token) });
    expect(run.code).toBe(7);
    const [, ...lines] = run.stderr.split('\n');
    // The devices come in the record's order.
    expect(lines.slice(0, 3)).toEqual(
      expect.arrayContaining([
        `  Ana's iPhone: ${GONE}`,
        `  Ana's Vision Pro: ${GONE}`,
        "  Ana's Watch: its push service refused the notification; the server's operator can read the push service's response in the server's log",
      ]),
    );
    expect(lines.slice(3)).toEqual(['  code: undeliverable', '']);
  }, 30_000);

  it('with --fail-open, a warning that says it will not arrive, and 0', async () => {
    const { env } = await goneIphone();
    const run = await notify(['send', 'hi', '--target', 'iphone', '--wait', '--quiet', '--fail-open'], {
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `warning: ${run.stdout.trim()} will not arrive: no device can get it\n  Ana's iPhone: ${GONE}\n  code: undeliverable\n`,
    );
  }, 30_000);

  it('a dropped notification: 7, with its reason and what it means', async () => {
    const account = await createAccount(service);
    const run = await notify(['send', 'hi', '--target', 'Nobody', '--wait', '--quiet'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(7);
    expect(run.stderr).toBe(
      `error: ${run.stdout.trim()} will not arrive: it was dropped (no_matching_device)\n  code: dropped\n  next: No active device matches the target; see \`notify devices\`\n`,
    );
  }, 30_000);
});

describe('--wait when some devices got it and others will not', () => {
  it('is a result (0), with a warning for each device that will not get it', async () => {
    const account = await createAccount(service);
    await script(account.pushTokens[0], [UNREGISTERED]);
    const run = await notify(['send', 'Deploy finished', '--wait', '60'], {
      env: using(service, account.token),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^✓ ntf_\w+ reached 2 of 3 devices; sent_to_push: Ana's iPhone failed \(410\): its notifications are turned off \(the push service says its subscription is gone\), Ana's Watch reached \(200\), Ana's Vision Pro reached \(200\)\n$/,
    );
    expect(run.stderr.endsWith(`warning: Ana's iPhone will not get it: ${GONE}\n`)).toBe(true);
  }, 30_000);
});

describe('notify devices', () => {
  it('with the account key lists a device made inactive after the active ones, with why in words and in --json', async () => {
    const { env, key } = await goneIphone();
    expect((await notify(['send', 'hi', '--target', 'iphone', '--wait', '--quiet'], { env })).code).toBe(7);
    const withKey = { ...env, NOTIFY_ACCOUNT_KEY: key };
    const listed = await notify(['devices'], { env: withKey });
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    expect(listed.stdout).toMatch(
      /^Ana's Watch {7}watchos {3}not seen yet\nAna's Vision Pro {2}visionos {2}not seen yet\nAna's iPhone {6}ios {7}inactive: Apple says its push token is no longer valid; open the app on it so it registers again\n$/,
    );
    const json = await notify(['devices', '--json'], { env: withKey });
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ name: "Ana's Watch", active: true }),
      expect.objectContaining({ name: "Ana's Vision Pro", active: true }),
      expect.objectContaining({ name: "Ana's iPhone", active: false, inactive_reason: 'unregistered' }),
    ]);
    // A send token lists the active devices only, as before.
    const bySendToken = await notify(['devices'], { env });
    expect(bySendToken.stdout).toBe("Ana's Watch       watchos\nAna's Vision Pro  visionos\n");
  }, 30_000);
});
