import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type Service, spawnService } from './service.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The services the CLI's files share (helpers.ts, `sharedService`). */
    cliServices: { default: Service; relaxed: Service };
  }
}

/**
 * The CLI's run: two real servers every file shares, started once instead of once per file (a
 * start costs a second or more on a busy machine), stopped and their data removed at the end. Not
 * in `pnpm test:fast`, whose tests start no process.
 */
export default async function setup(project: TestProject) {
  if (process.env.FOXBELL_TIER === 'fast') return;
  const dir = await mkdtemp(join(tmpdir(), 'notify-test-services-'));
  const started = await Promise.allSettled([
    spawnService(join(dir, 'default')),
    spawnService(join(dir, 'relaxed'), ['--rate-per-token', '1000', '--rate-per-account', '1000']),
  ]);
  const teardown = async () => {
    for (const result of started) if (result.status === 'fulfilled') await result.value.stop();
    await rm(dir, { recursive: true, force: true });
  };
  const [shared, relaxed] = started;
  if (shared?.status !== 'fulfilled' || relaxed?.status !== 'fulfilled') {
    await teardown();
    throw [shared, relaxed].find((result) => result?.status === 'rejected')?.reason;
  }
  project.provide('cliServices', { default: shared.value.service, relaxed: relaxed.value.service });
  return teardown;
}
