import { describe, expect, it } from 'vitest';
import { type BuildStep, runBuildSteps, type StepClock, type StepRun } from '../src/build-steps.js';

/** Builds that end when the test says, on a clock the test moves: no process, no waiting. */
function scripted() {
  let now = 0;
  const ticks = new Set<() => void>();
  const endings: ((result: { code: number | null; errors: string }) => void)[] = [];
  const started: string[] = [];
  const clock: StepClock = {
    now: () => now,
    every: (_ms, tick) => {
      ticks.add(tick);
      return () => ticks.delete(tick);
    },
  };
  const run: StepRun = (step) =>
    new Promise((resolve) => {
      started.push(step.name);
      endings.push(resolve);
    });
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return {
    clock,
    run,
    started,
    /** Moves the clock on by `ms`, a tick each second of it. */
    advance(ms: number) {
      for (let passed = 1000; passed <= ms; passed += 1000) {
        now += 1000;
        for (const tick of ticks) tick();
      }
      now += ms % 1000;
    },
    async end(code: number, errors = '') {
      await settled();
      endings.shift()?.({ code, errors });
      await settled();
    },
    ticking: () => ticks.size,
  };
}

const step = (name: string): BuildStep => ({ name, command: 'build', args: [], cwd: '.' });

function collect(isTTY: boolean) {
  let text = '';
  return { out: { isTTY, write: (chunk: string) => (text += chunk) }, text: () => text };
}

describe('the build steps of pnpm start, on a clock of the test', () => {
  it('says which package is building and how long each took, one line each without a terminal', async () => {
    const builds = scripted();
    const { out, text } = collect(false);
    const done = runBuildSteps([step('@foxbell/sdk'), step('@foxbell/cli')], out, builds);
    builds.advance(2400);
    await builds.end(0);
    builds.advance(12_600);
    await builds.end(0);
    expect(await done).toBeUndefined();
    expect(text()).toBe(
      '  1/2 @foxbell/sdk…\n  1/2 @foxbell/sdk built in 2 s\n  2/2 @foxbell/cli…\n  2/2 @foxbell/cli built in 13 s\n',
    );
    expect(builds.ticking()).toBe(0);
  });

  it('counts the seconds on the current line of a terminal, and stops counting when it is built', async () => {
    const builds = scripted();
    const { out, text } = collect(true);
    const done = runBuildSteps([step('@foxbell/server')], out, builds);
    builds.advance(3000);
    await builds.end(0);
    await done;
    expect(text()).toBe(
      '  1/1 @foxbell/server…\r  1/1 @foxbell/server… 1 s\r  1/1 @foxbell/server… 2 s\r  1/1 @foxbell/server… 3 s\r  1/1 @foxbell/server built in 3 s\n',
    );
    expect(builds.ticking()).toBe(0);
  });

  it('stops at the first build that fails, with its errors, and starts no other', async () => {
    const builds = scripted();
    const { out, text } = collect(false);
    const done = runBuildSteps([step('@foxbell/sdk'), step('@foxbell/cli')], out, builds);
    await builds.end(2, 'src/index.ts: error TS2322\n');
    expect(await done).toEqual({ failed: '@foxbell/sdk', errors: 'src/index.ts: error TS2322\n' });
    expect(builds.started).toEqual(['@foxbell/sdk']);
    expect(text()).toBe('  1/2 @foxbell/sdk…\n  1/2 @foxbell/sdk failed\n');
  });
});
