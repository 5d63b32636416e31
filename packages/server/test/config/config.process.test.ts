import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readConfig, SERVER_SETTINGS, USAGE } from '../../src/config/server-settings.js';
import { DEFAULT_LIMITS } from '../../src/kernel/limits.js';
import { localCertificate } from '../../src/simulator/local-certificate.js';
import { send } from '../helpers.js';
import { ADMIN, runToExit, startProcess, tempDir } from '../processes.js';

const run = promisify(execFile);

describe("foxbell-server's settings, one table", () => {
  it('reads no database driver, DataLoader or APNs client to read the settings', async () => {
    const probe = fileURLToPath(new URL('../fixtures/imported-modules.mjs', import.meta.url));
    const config = fileURLToPath(new URL('../../src/config/server-settings.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', probe, config]);
    const resolved: string[] = JSON.parse(stdout);
    expect(resolved).toContain(new URL('../../src/kernel/settings.ts', import.meta.url).href);
    // ipaddr.js (one file, no dependencies) is the address guard's range table, which the VAPID
    // subject's check reads too.
    expect(
      resolved
        .filter((url) => !url.endsWith('/node_modules/ipaddr.js/lib/ipaddr.js'))
        .filter((url) => /node_modules|\/apns\/client\.ts$|\/store\/postgres\/(?!options\.ts)/.test(url)),
    ).toEqual([]);
  });

  it('lists every setting in --help with its variable and its default', () => {
    for (const setting of Object.values(SERVER_SETTINGS)) {
      const line = USAGE.slice(USAGE.indexOf(`  --${setting.flag} `));
      const entry = line.slice(0, line.indexOf('\n  --')).replace(/\s+/g, ' ');
      if ('variable' in setting) expect(entry, setting.flag).toContain(setting.variable);
      if ('default' in setting) expect(entry, setting.flag).toContain(`default ${setting.default}`);
    }
  });

  it('takes each default from the table, a variable over it and a flag over both', () => {
    const defaults = readConfig([], {});
    expect(defaults).toMatchObject({
      ok: true,
      config: {
        command: 'serve',
        port: 8787,
        host: '127.0.0.1',
        dataDir: './.foxbell',
        database: { kind: 'sqlite', dataDir: './.foxbell' },
        dev: false,
        limits: DEFAULT_LIMITS,
        logLevel: 'info',
        workers: 64,
        leaseMs: 6_000,
        apns: { kind: 'sim', control: undefined },
      },
    });
    const chosen = readConfig(['--port', '9001', '--no-workers'], {
      FOXBELL_PORT: '9000',
      FOXBELL_HOST: '0.0.0.0',
      FOXBELL_DEV: 'true',
      FOXBELL_WORKERS: '8',
    });
    expect(chosen).toMatchObject({
      ok: true,
      config: { port: 9001, host: '0.0.0.0', dev: true, workers: 0 },
    });
  });

  it('lists settings that only go together, and APNs credentials a real push needs', () => {
    expect(readConfig(['worker', '--no-workers', '--database-schema', 'x'], {})).toEqual({
      ok: false,
      problems: [
        '--database-schema (FOXBELL_DATABASE_SCHEMA) needs --database',
        'a worker needs --workers of at least 1',
      ],
    });
    expect(readConfig(['--apns', 'sandbox'], {})).toEqual({
      ok: false,
      problems: [
        '--apns-key-file (FOXBELL_APNS_KEY_FILE) is required to push to APNs',
        '--apns-key-id (FOXBELL_APNS_KEY_ID) is required to push to APNs',
        '--apns-team-id (FOXBELL_APNS_TEAM_ID) is required to push to APNs',
      ],
    });
  });
  it('reads the certificates of --apns-ca and --web-push-ca at start, and names a file it cannot use', async () => {
    const dir = await tempDir();
    const [first, second] = await Promise.all([localCertificate('one CA'), localCertificate('another CA')]);
    const files = {
      bundle: path.join(dir, 'bundle.pem'),
      missing: path.join(dir, 'missing.pem'),
      text: path.join(dir, 'text.pem'),
      broken: path.join(dir, 'broken.pem'),
    };
    await writeFile(files.bundle, `# two CAs\n${first.cert}\n${second.cert}`);
    await writeFile(files.text, 'not a certificate\n');
    await writeFile(
      files.broken,
      `${first.cert}\n-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n`,
    );
    const remote = ['--apns-url', 'https://127.0.0.1:2197', '--apns-key-file', 'k.p8'];
    const ids = ['--apns-key-id', 'ABC123DEFG', '--apns-team-id', 'DEF123GHIJ'];
    const read = readConfig(
      [...remote, ...ids, '--apns-ca', files.bundle, '--web-push-ca', files.bundle],
      {},
    );
    const both = `${first.cert.trim()}\n${second.cert.trim()}`;
    expect(read).toMatchObject({ ok: true, config: { apns: { ca: both }, webPush: { ca: both } } });
    expect(readConfig([], {})).toMatchObject({ ok: true, config: { webPush: { ca: undefined } } });
    for (const [file, problem] of [
      [files.missing, `cannot read ${files.missing}: ENOENT`],
      [files.text, `${files.text} holds no PEM certificate`],
      [files.broken, `certificate 2 of ${files.broken} cannot be read`],
    ] as const) {
      expect(readConfig([...remote, ...ids, '--apns-ca', file], { FOXBELL_WEB_PUSH_CA: file })).toEqual({
        ok: false,
        problems: [
          `--apns-ca (FOXBELL_APNS_CA): ${problem}`,
          `--web-push-ca (FOXBELL_WEB_PUSH_CA): ${problem}`,
        ],
      });
    }
  });

  it('reads --metrics as HOST:PORT and --trust-proxy as addresses or ranges, and names a bad one', () => {
    const metricsProblem =
      '--metrics (FOXBELL_METRICS) must be HOST:PORT, such as 127.0.0.1:9464 ([::1]:9464 for IPv6; port 0 picks one)';
    const metricsOf = (value: string) => readConfig(['--metrics', value], {});
    expect(metricsOf('127.0.0.1:65535')).toMatchObject({
      ok: true,
      config: { metrics: { host: '127.0.0.1', port: 65_535 } },
    });
    expect(metricsOf('[::1]:0')).toMatchObject({ ok: true, config: { metrics: { host: '::1', port: 0 } } });
    for (const bad of ['127.0.0.1:65536', '9464', '::1:9464', 'localhost:', ':9464']) {
      expect(metricsOf(bad), bad).toEqual({ ok: false, problems: [metricsProblem] });
    }
    expect(readConfig([], { FOXBELL_METRICS: '0.0.0.0:9464' })).toMatchObject({
      ok: true,
      config: { metrics: { host: '0.0.0.0', port: 9464 } },
    });

    expect(readConfig(['--trust-proxy', '127.0.0.1, 10.0.0.0/8,::1,fd00::/8'], {})).toMatchObject({
      ok: true,
      config: { trustProxy: ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'] },
    });
    for (const bad of [
      'proxy.internal',
      '127.0.0.1/999',
      '127.0.0.1/33',
      '::1/129',
      '10.0.0.0/8/8',
      '300.1.1.1',
    ]) {
      expect(readConfig(['--trust-proxy', `127.0.0.1,${bad}`], {}), bad).toEqual({
        ok: false,
        problems: [
          `--trust-proxy (FOXBELL_TRUST_PROXY) must be addresses or CIDR ranges, separated by commas (127.0.0.1,10.0.0.0/8), not "${bad}"`,
        ],
      });
    }
  });

  it('reads --public-url as the origin people reach the server at, and names one that is not', () => {
    expect(readConfig([], {})).toMatchObject({ ok: true, config: { publicUrl: undefined } });
    for (const [given, origin] of [
      ['https://push.example.com', 'https://push.example.com'],
      ['HTTPS://Push.Example.com:443/', 'https://push.example.com'],
      ['http://localhost:8787', 'http://localhost:8787'],
    ]) {
      expect(readConfig([], { FOXBELL_PUBLIC_URL: given }), given).toMatchObject({
        ok: true,
        config: { publicUrl: origin },
      });
    }
    for (const bad of [
      'push.example.com',
      'ftp://push.example.com',
      'https://push.example.com/foxbell/',
      'https://push.example.com/?x=1',
      'https://push.example.com/#app',
      'https://ana:secret@push.example.com',
    ]) {
      expect(readConfig(['--public-url', bad], {}), bad).toEqual({
        ok: false,
        problems: [
          `--public-url (FOXBELL_PUBLIC_URL) must be this server's address as people reach it, a scheme and host only (https://push.example.com), not "${bad}"`,
        ],
      });
    }
  });

  it('rejects a range the proxy matcher cannot take with exit 2, listed with the other mistakes, never a crash', async () => {
    const refused = await runToExit(['--trust-proxy', '127.0.0.1/999', '--port', 'x']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--port (FOXBELL_PORT) must be an integer');
    expect(refused.stderr).toContain('--trust-proxy (FOXBELL_TRUST_PROXY) must be addresses or CIDR ranges');
    expect(refused.stderr).not.toContain('    at ');
  });
});

describe('the VAPID subject (--web-push-subject)', () => {
  it('stops the server at start with exit 2, naming the setting, for a subject a push service would reject', async () => {
    const refused = await runToExit(['--web-push-subject', 'mailto:root@localhost']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--web-push-subject (FOXBELL_WEB_PUSH_SUBJECT) must not point at this machine or its network: push services refuse "mailto:root@localhost" (Apple\'s: 403 BadJwtToken)',
    );
    const fromEnv = await runToExit([], { FOXBELL_WEB_PUSH_SUBJECT: 'https://foxbell' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain(
      '--web-push-subject (FOXBELL_WEB_PUSH_SUBJECT) must be a public address',
    );
  });

  it.each([
    ['mailto:ops@example.com', true],
    ['https://foxbell.example.com/contact', true],
    ['https://17.253.144.10/', true],
    ['mailto:root@localhost', false],
    ['mailto:me@server', false],
    ['https://localhost/', false],
    ['https://foxbell.localhost/', false],
    ['https://nas.local/', false],
    ['https://127.0.0.2/', false],
    ['https://[::1]/', false],
    ['https://192.168.1.20/', false],
    ['https://foxbell/', false],
    ['http://foxbell.example.com/', false],
    ['ops@example.com', false],
  ])('%s is %s', (subject, taken) => {
    expect(readConfig(['--web-push-subject', subject], {}).ok).toBe(taken);
  });
});

describe('the admin key', () => {
  it('is at least 32 characters, and says how to make one', () => {
    expect(readConfig(['--admin-key', 'x'.repeat(31)], {})).toEqual({
      ok: false,
      problems: [
        '--admin-key (FOXBELL_ADMIN_KEY) must be at least 32 characters (make one: openssl rand -base64 32)',
      ],
    });
    expect(readConfig([], { FOXBELL_ADMIN_KEY: 'k'.repeat(32) })).toMatchObject({
      ok: true,
      warnings: [],
      config: { adminKey: 'k'.repeat(32) },
    });
  });

  it('is visible ASCII, as an Authorization header carries it: a character no key has is named, the key never', () => {
    for (const [key, named] of [
      [`${'k'.repeat(40)}…`, '"…" (U+2026)'],
      [`${'k'.repeat(20)} ${'k'.repeat(20)}`, 'a space'],
      [`${'k'.repeat(40)}\t`, 'a control character'],
      [`${'k'.repeat(40)}\u0085`, 'a control character'],
      [`${'k'.repeat(40)}é`, '"é" (U+00E9)'],
    ]) {
      expect(readConfig([], { FOXBELL_ADMIN_KEY: key as string }), named).toEqual({
        ok: false,
        problems: [
          `--admin-key (FOXBELL_ADMIN_KEY) holds ${named}, which no key has (make one: openssl rand -base64 32)`,
        ],
      });
    }
    // Every visible ASCII character is one a key may have.
    const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(readConfig([], { FOXBELL_ADMIN_KEY: visible })).toMatchObject({ ok: true });
  });

  it('is read from a file (flag or variable), less its line end; a flag is warned of', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'admin-key');
    await writeFile(file, `${'f'.repeat(40)}\n`, { mode: 0o600 });
    const expected = { ok: true, warnings: [], config: { adminKey: 'f'.repeat(40) } };
    expect(readConfig(['--admin-key-file', file], {})).toMatchObject(expected);
    expect(readConfig([], { FOXBELL_ADMIN_KEY_FILE: file })).toMatchObject(expected);
    // The variable itself wins over the file it would name.
    expect(readConfig([], { FOXBELL_ADMIN_KEY: 'v'.repeat(32), FOXBELL_ADMIN_KEY_FILE: file })).toMatchObject(
      {
        config: { adminKey: 'v'.repeat(32) },
      },
    );
    expect(readConfig(['--admin-key', 'a'.repeat(32)], {})).toMatchObject({
      ok: true,
      warnings: [
        '--admin-key on the command line can be read by every user of this machine (ps, /proc); give --admin-key-file FILE or FOXBELL_ADMIN_KEY instead',
      ],
    });
    // A file that cannot be read is named, and nothing of what it may hold is.
    expect(readConfig(['--admin-key-file', path.join(dir, 'none')], {})).toEqual({
      ok: false,
      problems: ['--admin-key-file cannot be read: ENOENT'],
    });
    const short = path.join(dir, 'short');
    await writeFile(short, 'secret-but-short\n');
    const problems = (readConfig(['--admin-key-file', short], {}) as { problems: string[] }).problems;
    expect(problems).toEqual([
      '--admin-key (FOXBELL_ADMIN_KEY) must be at least 32 characters (make one: openssl rand -base64 32)',
    ]);
  });

  it('given as a flag, is warned of at start; from a file, the server starts quietly and takes it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'admin-key');
    await writeFile(file, `${ADMIN}\n`, { mode: 0o600 });
    const quiet = await startProcess([
      '--data',
      path.join(dir, 'a'),
      '--admin-key-file',
      file,
      '--log-level',
      'warn',
      // No workers: a server delivering to the built-in simulator warns of that too.
      '--no-workers',
    ]);
    const account = await send(quiet.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    expect(account.status).toBe(201);
    expect(quiet.stderr()).toBe('');
    const loud = await startProcess([
      '--data',
      path.join(dir, 'b'),
      '--admin-key',
      ADMIN,
      '--log-level',
      'warn',
      // No workers: a server delivering to the built-in simulator warns of that too.
      '--no-workers',
    ]);
    expect(loud.stderr()).toBe(
      'foxbell-server: warning: --admin-key on the command line can be read by every user of this machine (ps, /proc); give --admin-key-file FILE or FOXBELL_ADMIN_KEY instead\n',
    );
    expect(loud.stderr()).not.toContain(ADMIN);
  });
});
