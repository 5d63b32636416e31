import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readConfig, SERVER_SETTINGS, USAGE } from '../../src/config.js';
import { DEFAULT_LIMITS } from '../../src/http/context.js';

const run = promisify(execFile);

describe("foxbell-server's settings, one table", () => {
  it('reads no database driver, DataLoader or APNs client to read the settings', async () => {
    const probe = fileURLToPath(new URL('../fixtures/imported-modules.mjs', import.meta.url));
    const config = fileURLToPath(new URL('../../src/config.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', probe, config]);
    const resolved: string[] = JSON.parse(stdout);
    expect(resolved).toContain(new URL('../../src/settings.ts', import.meta.url).href);
    expect(
      resolved.filter((url) =>
        /node_modules|\/apns\/client\.ts$|\/store\/postgres\/(?!options\.ts)/.test(url),
      ),
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
        apns: { kind: 'sim', controlPort: 0 },
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
    expect(readConfig(['--trust-proxy', 'proxy.internal'], {})).toEqual({
      ok: false,
      problems: [
        '--trust-proxy (FOXBELL_TRUST_PROXY) must be addresses or CIDR ranges, separated by commas (127.0.0.1,10.0.0.0/8)',
      ],
    });
  });
});
