import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccount, notify, sharedService, tempDir, using } from './helpers.js';

const service = sharedService();

const TOKEN = `fox_send_${'Q'.repeat(32)}`;

/** The body `notify send --dry-run` would send, with this environment and config file. */
async function dryRunBody(args: string[], env: Record<string, string>) {
  const run = await notify(['send', 'hi', '--dry-run', '--json', ...args], {
    env: { NOTIFY_BASE_URL: 'https://foxbell.example.com', NOTIFY_TOKEN: TOKEN, ...env },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout).request.body;
}

describe('settings a CI setup sets once', () => {
  it('reads NOTIFY_SCENE, NOTIFY_LEVEL, NOTIFY_TARGET, NOTIFY_GROUP, NOTIFY_TTL, NOTIFY_SOUND and NOTIFY_BELL_COLOR', async () => {
    expect(
      await dryRunBody([], {
        NOTIFY_SCENE: 'rocket',
        NOTIFY_LEVEL: 'passive',
        NOTIFY_TARGET: 'watch',
        NOTIFY_GROUP: 'acme/api',
        NOTIFY_TTL: '600',
        NOTIFY_SOUND: 'none',
        NOTIFY_BELL_COLOR: 'red',
      }),
    ).toEqual({
      message: 'hi',
      scene: 'rocket',
      bell_color: 'red',
      level: 'passive',
      group: 'acme/api',
      sound: 'none',
      ttl: 600,
      target: 'watch',
    });
  });

  it('takes a flag over the variable, the variable over the profile, the profile over the default', async () => {
    const dir = await tempDir();
    const config = join(dir, 'config.json');
    await mkdir(dir, { recursive: true });
    await writeFile(
      config,
      JSON.stringify({ profiles: { ci: { scene: 'garage', level: 'active', group: 'builds' } } }),
    );
    const body = await dryRunBody(['--profile', 'ci', '--scene', 'rocket'], {
      NOTIFY_CONFIG: config,
      NOTIFY_SCENE: 'campfire',
      NOTIFY_LEVEL: 'time-sensitive',
    });
    expect(body).toEqual({ message: 'hi', scene: 'rocket', level: 'time-sensitive', group: 'builds' });
    // Without the profile, none of its defaults; without any, the service's own.
    expect(await dryRunBody([], { NOTIFY_CONFIG: config })).toEqual({ message: 'hi' });
  });

  it('saves a profile default with notify config set, checked as the field is', async () => {
    const dir = await tempDir();
    const env = { NOTIFY_CONFIG: join(dir, 'config.json') };
    const saved = await notify(['config', 'set', 'scene', 'rocket', '--profile', 'ci'], { env });
    expect([saved.code, saved.stdout]).toEqual([0, `Saved scene of profile "ci" in ${env.NOTIFY_CONFIG}\n`]);
    expect((await notify(['config', 'set', 'ttl', '60', '--profile', 'ci'], { env })).code).toBe(0);
    const refused = await notify(['config', 'set', 'level', 'loud', '--profile', 'ci'], { env });
    expect([refused.code, refused.stderr]).toEqual([
      2,
      'error: level must be passive, active, time-sensitive, or an integer from -2 to 2\n  code: usage\n',
    ]);
    expect(JSON.parse((await notify(['config', 'list', '--json'], { env })).stdout).profiles).toEqual({
      ci: { scene: 'rocket', ttl: '60' },
    });
    expect(await dryRunBody(['--profile', 'ci'], env)).toEqual({ message: 'hi', scene: 'rocket', ttl: 60 });
  });
});

describe('--verbose and NOTIFY_DEBUG', () => {
  it('trace each request on stderr: method, address, status, request id and time, never the token or the text', async () => {
    const account = await createAccount(service);
    for (const [args, env] of [
      [['--verbose'], {}],
      [[], { NOTIFY_DEBUG: '1' }],
    ] as const) {
      const run = await notify(['send', 'Secret plans', '--quiet', ...args], {
        env: { ...using(service, account.token), ...env },
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(
        new RegExp(
          `^trace: POST ${service.url}/v1/notifications: attempt 1 of 4\\ntrace: POST ${service.url}/v1/notifications: 202 in \\d+ ms \\(req_\\w+\\)\\n$`,
        ),
      );
      expect(run.stderr).not.toContain(account.token);
      expect(run.stderr).not.toContain('Secret plans');
    }
  });

  it('traces each retry with its wait', async () => {
    const run = await notify(['send', 'hi', '--verbose', '--retries', '1'], {
      env: { NOTIFY_BASE_URL: 'http://127.0.0.1:9', NOTIFY_TOKEN: TOKEN },
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      /^trace: POST http:\/\/127\.0\.0\.1:9\/v1\/notifications: attempt 1 of 2\ntrace: POST http:\/\/127\.0\.0\.1:9\/v1\/notifications: no response \(network\) after \d+ ms\ntrace: POST http:\/\/127\.0\.0\.1:9\/v1\/notifications: retry 1 in 1\d{3} ms \(network\)\n/,
    );
  });
});
