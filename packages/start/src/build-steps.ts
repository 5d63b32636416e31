import { spawn } from 'node:child_process';

/** One build to run, and how to name it while it runs. */
export interface BuildStep {
  name: string;
  command: string;
  args: string[];
  cwd: string;
}

/** Where progress goes: a terminal gets a live seconds count on the current line. */
export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
}

/** How a build ends: its exit code (null when it could not start) and its standard error. */
export type StepRun = (step: BuildStep) => Promise<{ code: number | null; errors: string }>;

/** Runs a build as a process of its own. */
export const spawnStep: StepRun = (step) =>
  new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd: step.cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk;
    });
    child.on('error', (error) => resolve({ code: null, errors: `${error.message}\n` }));
    child.on('close', (code) => resolve({ code, errors }));
  });

/** The time the count reads, and how it ticks: the system's, or a test's. */
export interface StepClock {
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

const SYSTEM_CLOCK: StepClock = {
  now: () => Date.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  },
};

/**
 * Runs the builds one after another, saying which is running (`2/3 @foxbell/cli…`) and how long
 * each took, since a first build takes a minute on a small machine. Stops at the first that fails
 * and resolves with its name and standard error; undefined when all built.
 */
export async function runBuildSteps(
  steps: BuildStep[],
  out: ProgressOut,
  { run = spawnStep, clock = SYSTEM_CLOCK }: { run?: StepRun; clock?: StepClock } = {},
): Promise<{ failed: string; errors: string } | undefined> {
  for (const [index, step] of steps.entries()) {
    const label = `  ${index + 1}/${steps.length} ${step.name}`;
    const started = clock.now();
    const seconds = () => Math.round((clock.now() - started) / 1000);
    const stopTicking = out.isTTY
      ? clock.every(1000, () => out.write(`\r${label}… ${seconds()} s`))
      : undefined;
    out.write(out.isTTY ? `${label}…` : `${label}…\n`);
    const result = await run(step);
    stopTicking?.();
    if (result.code !== 0) {
      out.write(out.isTTY ? `\r${label} failed\n` : `${label} failed\n`);
      return { failed: step.name, errors: result.errors };
    }
    out.write(`${out.isTTY ? `\r${label}` : label} built in ${seconds()} s\n`);
  }
  return undefined;
}
