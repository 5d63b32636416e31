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

/**
 * Runs the builds one after another, saying which is running (`2/3 @foxbell/cli…`) and how long
 * each took, since a first build takes a minute on a small machine. Stops at the first that fails
 * and resolves with its name and standard error; undefined when all built.
 */
export async function runBuildSteps(
  steps: BuildStep[],
  out: ProgressOut,
): Promise<{ failed: string; errors: string } | undefined> {
  for (const [index, step] of steps.entries()) {
    const label = `  ${index + 1}/${steps.length} ${step.name}`;
    const started = Date.now();
    const seconds = () => Math.round((Date.now() - started) / 1000);
    const ticker = out.isTTY ? setInterval(() => out.write(`\r${label}… ${seconds()} s`), 1000) : undefined;
    out.write(out.isTTY ? `${label}…` : `${label}…\n`);
    const result = await new Promise<{ code: number | null; errors: string }>((resolve) => {
      const child = spawn(step.command, step.args, { cwd: step.cwd, stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        errors += chunk;
      });
      child.on('error', (error) => resolve({ code: null, errors: `${error.message}\n` }));
      child.on('close', (code) => resolve({ code, errors }));
    });
    clearInterval(ticker);
    if (result.code !== 0) {
      out.write(out.isTTY ? `\r${label} failed\n` : `${label} failed\n`);
      return { failed: step.name, errors: result.errors };
    }
    out.write(`${out.isTTY ? `\r${label}` : label} built in ${seconds()} s\n`);
  }
  return undefined;
}
