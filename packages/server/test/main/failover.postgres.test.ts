import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/schema.js';
import { builtOnce } from '../cached-folders.js';
import type { Running } from '../processes.js';
import {
  type Deployment,
  expectEveryAcceptedSendDelivered,
  expectOnlyRetriedResponses,
  faultFigures,
  type Load,
  sendContinuously,
  startCaddy,
  startDeployment,
} from './deployment.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** `pnpm test` kills one API process; `FOXBELL_LONG=1`, ten in turn. */
const KILLS = process.env.FOXBELL_LONG ? 10 : 1;
const RESTARTS = process.env.FOXBELL_LONG ? 5 : 1;
/** How long PostgreSQL stays down in a restart. */
const DOWN_MS = 3_000;
/**
 * The release the rolling upgrade starts from: the last commit before this one's migrations 7
 * (`devices.last_seen_at`) and 8 (`provider`), so the new processes migrate while old ones serve.
 */
const PREVIOUS_RELEASE = '59a4472';

/** Sends accepted while the fault is on, for the figures; and that the clients went on after it. */
async function underLoad(load: Load, fault: () => Promise<void>) {
  await load.progress(30);
  const start = Date.now();
  await fault();
  const end = Date.now();
  await load.progress(30);
  return { start, end };
}

async function expectNothingLost(deployment: Deployment, load: Load) {
  await load.stop();
  expectOnlyRetriedResponses(load);
  // The SDK's retries, with Caddy's own, outlast each fault: no call was given up.
  expect(
    load.events.filter((event) => event.kind === 'gave_up'),
    `the clients' log: ${JSON.stringify(load.events)}`,
  ).toEqual([]);
  await expectEveryAcceptedSendDelivered(deployment, load);
  for (const process of [...deployment.apis, ...deployment.workers]) {
    expect(process.stderr()).not.toContain('Unhandled');
  }
}

/**
 * How a release is built, into an empty `folder`: `git archive` of a commit of this repository,
 * installed from the pnpm store this install filled (its lockfile is this one's), and built.
 */
async function build(commit: string, folder: string): Promise<void> {
  await run('sh', ['-c', `git -C "${ROOT}" archive "${commit}" | tar -x -C "${folder}"`]);
  const env = { ...process.env, CI: 'true' };
  await run('pnpm', ['install', '--offline', '--frozen-lockfile', '--filter', '@foxbell/server...'], {
    cwd: folder,
    env,
  });
  await run('pnpm', ['--filter', '@foxbell/server...', 'build'], { cwd: folder, env });
}

/**
 * A commit built (`build`): its foxbell-server entry script. Built once and kept
 * (cached-folders.ts: `release-builds`), per commit, Node's major version, platform and the text
 * of `build`, the things a build depends on beyond the commit: a build takes tens of seconds.
 */
async function buildRelease(commit: string): Promise<string> {
  const full = (await run('git', ['-C', ROOT, 'rev-parse', '--verify', `${commit}^{commit}`])).stdout.trim();
  const recipe = createHash('sha256').update(build.toString()).digest('hex').slice(0, 8);
  const node = process.versions.node.split('.')[0];
  const key = `${full.slice(0, 12)}-node${node}-${process.platform}-${process.arch}-${recipe}`;
  const folder = await builtOnce('release-builds', key, (empty) => build(full, empty));
  return path.join(folder, 'packages/server/bin/foxbell-server.js');
}

describe('two API processes behind Caddy (deploy/Caddyfile) and two workers, on PostgreSQL, under load', () => {
  it(`loses nothing when an API process is killed with -9 (${KILLS}×), and the clients see only retries`, async () => {
    const deployment = await startDeployment();
    const caddy = await startCaddy(deployment.apiAddresses);
    const load = sendContinuously(deployment, () => caddy.url);
    const faults = [];
    for (let kill = 0; kill < KILLS; kill += 1) {
      const slot = kill % 2;
      faults.push(
        await underLoad(load, async () => {
          const victim = deployment.apis[slot];
          if (!victim) throw new Error(`no API process in slot ${slot}`);
          deployment.retire(victim);
          victim.child.kill('SIGKILL');
          await victim.exited;
          // Clients go on through the other while this one is down.
          await load.progress(30);
          // Its supervisor starts it again, on its port, and the proxy finds it ready (before
          // the next kill: one failure at a time).
          deployment.apis[slot] = await deployment.startApi(slot);
          await deployment.proxied(deployment.apis[slot] as Running);
        }),
      );
    }
    await expectNothingLost(deployment, load);
    for (const fault of faults)
      console.log('kill -9 of an API process:', JSON.stringify(faultFigures(load, deployment.sim, fault)));
  }, 180_000);

  it(`loses nothing while PostgreSQL restarts (${RESTARTS}×, ${DOWN_MS / 1000} s down each)`, async () => {
    const deployment = await startDeployment();
    const caddy = await startCaddy(deployment.apiAddresses);
    const load = sendContinuously(deployment, () => caddy.url);
    const faults = [];
    for (let restart = 0; restart < RESTARTS; restart += 1) {
      faults.push(
        await underLoad(load, async () => {
          await deployment.postgres.stop('fast');
          await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
          await deployment.postgres.start();
        }),
      );
    }
    await expectNothingLost(deployment, load);
    for (const process of [...deployment.apis, ...deployment.workers])
      expect(process.child.exitCode).toBeNull();
    for (const fault of faults)
      console.log('PostgreSQL restart:', JSON.stringify(faultFigures(load, deployment.sim, fault)));
  }, 240_000);

  it(`loses nothing in a rolling upgrade from ${PREVIOUS_RELEASE}: migrations first, then each process in turn`, async () => {
    const previous = await buildRelease(PREVIOUS_RELEASE);
    const deployment = await startDeployment({ bin: previous });
    const caddy = await startCaddy(deployment.apiAddresses);
    const load = sendContinuously(deployment, () => caddy.url);
    const fault = await underLoad(load, async () => {
      // As docs/deploy.md says: one process of the new release first, which migrates while the
      // old ones serve; then the API processes one at a time, then the workers.
      for (const slot of [0, 1]) {
        const old = deployment.apis[slot];
        if (!old) throw new Error(`no API process in slot ${slot}`);
        await deployment.stop(old);
        deployment.apis[slot] = await deployment.startApi(slot);
        // Before the next one stops, the proxy has seen this one ready (docs/deploy.md).
        await deployment.proxied(deployment.apis[slot] as Running);
        await load.progress(20);
      }
      for (const [i, old] of deployment.workers.entries()) {
        const fresh = await deployment.startWorker();
        await deployment.stop(old);
        deployment.workers[i] = fresh;
        await load.progress(20);
      }
    });
    const [applied] = await deployment.query('SELECT max(version)::int AS version FROM foxbell_migrations');
    expect(applied?.version).toBe(POSTGRES_MIGRATIONS.length);
    console.log('rolling upgrade:', JSON.stringify(faultFigures(load, deployment.sim, fault)));

    // Once every process drains (this release's, with --drain-seconds), a rolling restart costs
    // the clients nothing: Caddy stops sending to a process before it stops taking requests.
    const retriesBefore = load.events.length;
    const restart = await underLoad(load, async () => {
      for (const slot of [0, 1]) {
        await deployment.stop(deployment.apis[slot] as Running);
        deployment.apis[slot] = await deployment.startApi(slot);
        await deployment.proxied(deployment.apis[slot] as Running);
        await load.progress(20);
      }
    });
    expect(load.events.slice(retriesBefore)).toEqual([]);
    await expectNothingLost(deployment, load);
    console.log('rolling restart, draining:', JSON.stringify(faultFigures(load, deployment.sim, restart)));
  }, 300_000);
});
