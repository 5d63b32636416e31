import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { startProcess, tempDir } from '../processes.js';

const PACKAGES = fileURLToPath(new URL('../../..', import.meta.url));

function run(command: string, args: string[], cwd: string) {
  return new Promise<string>((resolve, reject) => {
    execFile(command, args, { cwd, timeout: 120_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

describe('@foxbell/server as a package', () => {
  it('installs from its packed tarball with plain npm into an empty folder, then serves --dev and delivers', async () => {
    const dir = await tempDir();
    const packs = path.join(dir, 'packs');
    // What `pnpm publish` would upload: the workspace link to the SDK becomes its version.
    for (const name of ['sdk', 'server']) {
      await run('pnpm', ['pack', '--pack-destination', packs], path.join(PACKAGES, name));
    }
    const tarballs = (await readdir(packs)).map((file) => path.join(packs, file));
    expect(tarballs.map((file) => path.basename(file)).sort()).toEqual([
      'foxbell-sdk-0.1.0.tgz',
      'foxbell-server-0.1.0.tgz',
    ]);
    const prefix = path.join(dir, 'prefix');
    await run(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--cache',
        path.join(dir, 'npm-cache'),
        '--no-audit',
        '--no-fund',
        ...tarballs,
      ],
      dir,
    );

    const server = await startProcess(
      ['--dev', '--data', path.join(dir, 'data')],
      {},
      /listening on (http:\/\/\S+)/,
      path.join(prefix, 'node_modules', '.bin', 'foxbell-server'),
    );
    const token = /send token: +(fox_send_\w+)/.exec(server.stdout())?.[1] as string;
    expect(token).toBeDefined();
    const page = await fetch(`${server.url}/devices`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const sent = await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: { message: 'from the packed server', scene: 'rocket' },
    });
    expect(sent.status, sent.text).toBe(202);
    await expect
      .poll(
        async () =>
          (await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, { token })).body.status,
      )
      .toBe('sent_to_push');
  }, 180_000);
});
