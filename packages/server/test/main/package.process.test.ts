import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { startProcess, tempDir } from '../processes.js';

const PACKAGES = fileURLToPath(new URL('../../..', import.meta.url));

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<string>((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, timeout: 120_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || error.message}`))
          : resolve(stdout),
    );
  });
}

const PUBLISHED = ['sdk', 'cli', 'server'] as const;

describe('the published packages', () => {
  let dir: string;
  let packs: string;
  beforeAll(async () => {
    // Shared by this file's tests, so not a per-test tempDir.
    dir = await mkdtemp(path.join(tmpdir(), 'foxbell-packs-'));
    packs = path.join(dir, 'packs');
    // What `pnpm publish` would upload: the workspace link to the SDK becomes its version.
    for (const name of PUBLISHED) {
      await run('pnpm', ['pack', '--pack-destination', packs], path.join(PACKAGES, name));
    }
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each(PUBLISHED)('@foxbell/%s carries its license, README and where it comes from', async (name) => {
    const tarball = path.join(packs, `foxbell-${name}-0.1.0.tgz`);
    const listed = (await run('tar', ['tzf', tarball], dir)).split('\n');
    expect(listed).toEqual(
      expect.arrayContaining(['package/LICENSE', 'package/README.md', 'package/package.json']),
    );
    const unpacked = path.join(dir, `unpacked-${name}`);
    await run('mkdir', ['-p', unpacked], dir);
    await run('tar', ['xzf', tarball, '-C', unpacked], dir);
    const manifest = JSON.parse(await readFile(path.join(unpacked, 'package', 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      license: 'MIT',
      homepage: `https://github.com/foxbell/foxbell/tree/main/packages/${name}#readme`,
      repository: {
        type: 'git',
        url: 'git+https://github.com/foxbell/foxbell.git',
        directory: `packages/${name}`,
      },
      bugs: { url: 'https://github.com/foxbell/foxbell/issues' },
    });
    expect(manifest.keywords.length).toBeGreaterThan(3);
    expect(await readFile(path.join(unpacked, 'package', 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    // A README read on the registry has no repository beside it: no link may be relative.
    const readme = await readFile(path.join(unpacked, 'package', 'README.md'), 'utf8');
    expect(readme).not.toMatch(/\]\((?!https:\/\/)/);
  });

  it('@foxbell/server and @foxbell/cli install from their tarballs with plain npm into an empty folder; the server serves --dev and delivers what npx @foxbell/cli sends', async () => {
    const tarballs = PUBLISHED.map((name) => path.join(packs, `foxbell-${name}-0.1.0.tgz`));
    const work = await tempDir();
    const prefix = path.join(work, 'prefix');
    await run(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--cache',
        path.join(work, 'npm-cache'),
        '--no-audit',
        '--no-fund',
        ...tarballs,
      ],
      work,
    );

    const server = await startProcess(
      ['--dev', '--data', path.join(work, 'data')],
      {},
      /listening on (http:\/\/\S+)/,
      path.join(prefix, 'node_modules', '.bin', 'foxbell-server'),
    );
    const token = /send token: +(fox_send_\w+)/.exec(server.stdout())?.[1] as string;
    expect(token).toBeDefined();
    const page = await fetch(`${server.url}/devices`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    // As docs/cli.md says to run it: `npx @foxbell/cli`, which finds the installed package's one
    // command (`npx notify` would fetch an unrelated package of that name outside a project).
    const sentBy = await run(
      'npx',
      ['--no-install', '@foxbell/cli', 'send', 'from the packed CLI', '--scene', 'rocket', '--json'],
      prefix,
      { NOTIFY_BASE_URL: server.url, NOTIFY_TOKEN: token, npm_config_cache: path.join(work, 'npm-cache') },
    );
    const sent = JSON.parse(sentBy);
    expect(sent).toMatchObject({ id: expect.stringMatching(/^ntf_/), status: 'accepted' });
    expect((await run('npx', ['--no-install', '@foxbell/cli', '--version'], prefix)).trim()).toBe('0.1.0');
    await expect
      .poll(
        async () =>
          (await send(server.url, 'GET', `/v1/notifications/${sent.id}/status`, { token })).body.status,
      )
      .toBe('sent_to_push');
  }, 180_000);

  it('installs each package on its own into an empty prefix with plain npm (-g), the SDK tarball beside those that need it', async () => {
    const tarball = (name: string) => path.join(packs, `foxbell-${name}-0.1.0.tgz`);
    const installed = async (tarballs: string[]) => {
      const work = await tempDir();
      const prefix = path.join(work, 'prefix');
      const cache = ['--cache', path.join(work, 'npm-cache'), '--no-audit', '--no-fund'];
      await run('npm', ['install', '-g', '--prefix', prefix, ...cache, ...tarballs], work);
      return prefix;
    };
    const server = await installed([tarball('sdk'), tarball('server')]);
    expect((await run(path.join(server, 'bin', 'foxbell-server'), ['--version'], server)).trim()).toBe(
      '0.1.0',
    );
    const cli = await installed([tarball('sdk'), tarball('cli')]);
    expect((await run(path.join(cli, 'bin', 'notify'), ['--version'], cli)).trim()).toBe('0.1.0');
    const sdk = await installed([tarball('sdk')]);
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { Foxbell } = await import('@foxbell/sdk'); console.log(typeof Foxbell)",
      ],
      path.join(sdk, 'lib'),
    );
    expect(imported.trim()).toBe('function');
  }, 180_000);

  it('refuses to pack a package with nothing built, or built before its sources changed', async () => {
    const check = fileURLToPath(new URL('../../../../scripts/check-built.mjs', import.meta.url));
    const pkg = path.join(await tempDir(), 'sdk');
    await run('mkdir', ['-p', path.join(pkg, 'src')], dir);
    await run('touch', ['-d', '2026-11-27 10:00', path.join(pkg, 'src', 'index.ts')], dir);
    const refused = (await run(process.execPath, [check, pkg], dir).catch((error: Error) => error)) as Error;
    expect(refused.message).toContain('sdk: nothing built to pack (no dist/): run pnpm pack:all');
    await run('mkdir', ['-p', path.join(pkg, 'dist')], dir);
    await run('touch', ['-d', '2026-11-27 09:00', path.join(pkg, 'dist', 'index.js')], dir);
    const stale = (await run(process.execPath, [check, pkg], dir).catch((error: Error) => error)) as Error;
    expect(stale.message).toContain('sdk: dist/ is older than src/: run pnpm pack:all');
    await run('touch', ['-d', '2026-11-27 11:00', path.join(pkg, 'dist', 'index.js')], dir);
    expect(await run(process.execPath, [check, pkg], dir)).toBe('');
  });
});
