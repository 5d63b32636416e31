import { execFile } from 'node:child_process';
import { chmod, chown, copyFile, cp, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A stand-in for `node:24-slim`, built here because no image registry is reachable: a root file
 * system with Node 24 and npm from the npm registry at the official image's paths, a `node` user
 * (uid 1000), /bin/sh and the few commands a Dockerfile's RUN lines use, and the C libraries they
 * load, taken from this machine. Imported into `podman` as `tag`.
 */
export async function buildStandInBase(
  podman: (args: string[]) => Promise<string>,
  dir: string,
  tag: string,
): Promise<void> {
  const prefix = path.join(dir, 'node24');
  await run('npm', ['install', '--no-save', '--no-package-lock', '--prefix', prefix, 'node@24', 'npm@11'], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const root = path.join(dir, 'rootfs');
  for (const folder of [
    'usr/local/bin',
    'usr/local/lib/node_modules',
    'usr/bin',
    'bin',
    'etc',
    'root',
    'home/node',
  ]) {
    await mkdir(path.join(root, folder), { recursive: true });
  }
  const node = (await run('readlink', ['-f', path.join(prefix, 'node_modules/.bin/node')])).stdout.trim();
  await copyFile(node, path.join(root, 'usr/local/bin/node'));
  await chmod(path.join(root, 'usr/local/bin/node'), 0o755);
  await cp(path.join(prefix, 'node_modules/npm'), path.join(root, 'usr/local/lib/node_modules/npm'), {
    recursive: true,
  });
  await symlink('../lib/node_modules/npm/bin/npm-cli.js', path.join(root, 'usr/local/bin/npm'));
  // /bin/sh, and the commands a Dockerfile's RUN lines use: this machine's, at the image's paths.
  const binaries: [from: string, to: string][] = [['/bin/dash', 'bin/sh']];
  for (const name of ['env', 'mkdir', 'chown', 'ln', 'rm', 'cp', 'cat', 'ls', 'chmod']) {
    binaries.push([(await run('which', [name])).stdout.trim(), `usr/bin/${name}`]);
  }
  for (const [from, to] of binaries) await copyFile(from, path.join(root, to));
  // The C libraries: all of glibc (a native binary such as pnpm's loads more of it than Node
  // does), and what Node and the commands link besides.
  const libraries = new Set(
    (await run('dpkg', ['-L', 'libc6'])).stdout.split('\n').filter((file) => /\.so/.test(file)),
  );
  for (const binary of [node, ...binaries.map(([from]) => from)]) {
    for (const match of (await run('ldd', [binary])).stdout.matchAll(/(\/\S+\.so[.\d]*)/g))
      libraries.add(match[1] as string);
  }
  for (const library of libraries) {
    const target = path.join(root, library);
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(library, target).catch(() => undefined);
  }
  await writeFile(
    path.join(root, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n',
  );
  await writeFile(path.join(root, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
  await mkdir(path.join(root, 'tmp'), { mode: 0o1777 });
  await chmod(path.join(root, 'tmp'), 0o1777);
  await chown(path.join(root, 'home/node'), 1000, 1000);
  const archive = path.join(dir, 'rootfs.tar');
  await run('tar', ['-C', root, '-cf', archive, '.']);
  await podman(['import', '--change', 'ENV PATH=/usr/local/bin:/usr/bin:/bin', archive, tag]);
}
