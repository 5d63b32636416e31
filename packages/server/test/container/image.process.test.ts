import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sharedCacheFolder } from '../cached-folders.js';
import { send } from '../helpers.js';
import { ADMIN, freePort, tempDir } from '../processes.js';
import { buildStandInBase } from './stand-in-base.js';

const run = promisify(execFile);
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));
const BASE = 'localhost/foxbell-stand-in-base:24';
/** This run's names: runs of other checkouts may share the cached storage at the same time. */
const RUN = randomBytes(4).toString('hex');
const IMAGE = `localhost/foxbell-server:test-${RUN}`;

/**
 * Where the engine keeps its images and layers between runs: the stand-in base and the build's
 * layers up to its `pnpm install` cost minutes and change only with the lockfile, so a storage
 * per lockfile (by its hash) is kept (cached-folders.ts: `container-test`); a changed lockfile
 * starts a new one. The build still runs on every run, from the repository as it is: the engine
 * reuses a step only when its inputs are the same. With `FOXBELL_TEST_CACHE=off`, it builds on an
 * empty storage of the test's own, as a first run does (base, install and all), and as a changed
 * lockfile does anyway.
 */
async function storage(): Promise<{ root: string; runroot: string; cached: boolean }> {
  const lockfile = await readFile(path.join(REPOSITORY, 'pnpm-lock.yaml'));
  const key = createHash('sha256').update(lockfile).digest('hex').slice(0, 16);
  const { folder, cached } = await sharedCacheFolder('container-test', key);
  if (!cached) return { root: path.join(folder, 'storage'), runroot: path.join(folder, 'run'), cached };
  // The engine's state of running containers: a path of at most 50 characters, which it recreates
  // when gone (after a restart of the machine).
  return { root: folder, runroot: path.join(tmpdir(), `foxbell-podman-${key}`), cached };
}

/**
 * The repository's Dockerfile, built and run by a real container engine (podman, with runc), on
 * a storage of the test's (see `storage`). The base image is a stand-in built here (no registry
 * is reachable); the registry's CA, when this machine has one, is a build secret, never in the
 * image.
 */
async function engine() {
  for (const tool of ['podman', 'runc']) {
    const found = await run('which', [tool]).catch(() => undefined);
    if (!found) throw new Error(`the container test needs ${tool}: apt-get install podman runc`);
  }
  const dir = await tempDir();
  const { root, runroot, cached } = await storage();
  const conf = path.join(dir, 'containers.conf');
  // runc, cgroupfs and no default rlimits: what a container engine needs inside this machine's
  // own container (crun fails here on cgroups and rlimits).
  await writeFile(
    conf,
    '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n',
  );
  const where = ['--root', root, '--runroot', runroot];
  const podman = async (args: string[]) =>
    (
      await run('podman', [...where, ...args], {
        env: { ...process.env, CONTAINERS_CONF: conf },
        maxBuffer: 64 * 1024 * 1024,
      })
    ).stdout.trim();
  /** The engine's output of a container: its stdout and stderr, where the server's log goes. */
  const logs = async (name: string) => {
    const { stdout, stderr } = await run('podman', [...where, 'logs', name], {
      env: { ...process.env, CONTAINERS_CONF: conf },
    });
    return stdout + stderr;
  };
  /** The stand-in base, built when the storage does not have it yet. */
  const base = async () => {
    if (
      cached &&
      (await podman(['image', 'exists', BASE]).then(
        () => true,
        () => false,
      ))
    )
      return;
    await buildStandInBase(podman, dir, BASE);
  };
  // This run's containers, volume and image go before the test's folder does (in the test's own
  // time: a reset takes longer than an after-each hook may); a storage of the test's own goes
  // whole, a cached one keeps its layers.
  const reset = async () => {
    await podman(['rm', '--force', `foxbell-1-${RUN}`, `foxbell-2-${RUN}`]).catch(() => undefined);
    await podman(['volume', 'rm', '--force', `foxbell-data-${RUN}`]).catch(() => undefined);
    await podman(['rmi', IMAGE]).catch(() => undefined);
    if (!cached) await podman(['system', 'reset', '--force']).catch(() => undefined);
    // The layers of earlier runs' sources, an hour old and used by no image: each run builds the
    // repository as it is, and would otherwise add its own. Those of the lockfile's install stay,
    // below this run's layers.
    else await podman(['image', 'prune', '--force', '--filter', 'until=1h']).catch(() => undefined);
  };
  return { podman, logs, base, reset };
}

describe('the container image (Dockerfile)', () => {
  it('builds from the lockfile, runs as node with its data in /data, is healthy, stops on SIGTERM and keeps its data across containers', async () => {
    const { podman, logs, base, reset } = await engine();
    try {
      await base();
      const ca = process.env.NODE_EXTRA_CA_CERTS;
      await podman([
        ...['build', '--isolation', 'chroot', '--format', 'docker', '--build-arg', `BASE=${BASE}`],
        ...(ca && existsSync(ca) ? ['--secret', `id=npm_ca,src=${ca}`] : []),
        ...['--tag', IMAGE, REPOSITORY],
      ]);
      // The registry's CA is in no layer.
      const history = await podman(['history', '--no-trunc', '--format', '{{.CreatedBy}}', IMAGE]);
      expect(history).not.toContain('BEGIN CERTIFICATE');
      const [image] = JSON.parse(await podman(['image', 'inspect', IMAGE]));
      expect(image.Config.User).toBe('node');
      expect(image.Config.Volumes).toEqual({ '/data': {} });
      expect(image.Healthcheck.Test).toEqual(['CMD', 'node', '/app/bin/healthcheck.js']);

      await podman(['volume', 'create', `foxbell-data-${RUN}`]);
      const port = await freePort();
      const start = async (name: string) => {
        await podman([
          ...['run', '--detach', '--name', name, '--publish', `127.0.0.1:${port}:8787`],
          ...['--volume', `foxbell-data-${RUN}:/data`, '--env', `FOXBELL_ADMIN_KEY=${ADMIN}`, IMAGE],
        ]);
        const url = `http://127.0.0.1:${port}`;
        await expect
          .poll(async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.status, {
            timeout: 30_000,
          })
          .toBe(200);
        return url;
      };

      const url = await start(`foxbell-1-${RUN}`);
      const account = await send(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
      expect(account.status, account.text).toBe(201);
      const device = await send(url, 'POST', '/v1/devices', {
        token: account.body.key,
        json: { name: 'iPhone', platform: 'ios', push_token: 'c'.repeat(64) },
      });
      expect(device.status, device.text).toBe(201);
      const token = (await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body.token;
      const sent = await send(url, 'POST', '/v1/notifications', {
        token,
        json: { message: 'From the container' },
      });
      expect(sent.status, sent.text).toBe(202);
      await expect
        .poll(
          async () =>
            (await send(url, 'GET', `/v1/notifications/${sent.body.id}/status`, { token })).body.status,
          {
            timeout: 10_000,
          },
        )
        .toBe('sent_to_push');

      await podman(['healthcheck', 'run', `foxbell-1-${RUN}`]);
      expect(await podman(['exec', `foxbell-1-${RUN}`, 'node', '-p', 'process.getuid()'])).toBe('1000');
      // SIGTERM to Node as PID 1: it stops gracefully, and says so.
      await podman(['stop', '--time', '20', `foxbell-1-${RUN}`]);
      expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', `foxbell-1-${RUN}`])).toBe('0');
      expect(await logs(`foxbell-1-${RUN}`)).toContain('stopping: no new requests');
      await podman(['rm', `foxbell-1-${RUN}`]);

      // A new container on the same volume: the account, the token and the notification are there.
      const again = await start(`foxbell-2-${RUN}`);
      const record = await send(again, 'GET', `/v1/notifications/${sent.body.id}/status`, { token });
      expect([record.status, record.body.status]).toEqual([200, 'sent_to_push']);
      const next = await send(again, 'POST', '/v1/notifications', { token, json: { message: 'Still here' } });
      expect(next.status, next.text).toBe(202);
    } finally {
      await reset();
    }
  }, 900_000);
});
