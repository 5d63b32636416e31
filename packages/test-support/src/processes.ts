import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * Processes, folders and other things a test makes, gone after it whatever its outcome: children
 * are killed first, then what they used is cleaned up (a database schema), then folders removed.
 */
const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
const folders: string[] = [];
afterEach(() => release(children.splice(0), cleanups.splice(0), folders.splice(0)));

async function release(
  killed: ChildProcess[],
  cleanedUp: (() => Promise<void>)[],
  removed: string[],
): Promise<void> {
  await Promise.all(
    killed.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return exited;
    }),
  );
  await Promise.all(cleanedUp.map((cleanup) => cleanup()));
  await Promise.all(removed.map((folder) => rm(folder, { recursive: true, force: true })));
}

/**
 * What `make` starts (processes, folders, cleanups) kept past the test, for the tests of a
 * `describe` to share (from its `beforeAll`): `release` ends them as a test's end would.
 */
export async function keptForAll<T>(make: () => Promise<T>): Promise<{ value: T; release(): Promise<void> }> {
  const marks = [children.length, cleanups.length, folders.length] as const;
  const taken = () =>
    [children.splice(marks[0]), cleanups.splice(marks[1]), folders.splice(marks[2])] as const;
  try {
    const value = await make();
    const kept = taken();
    return { value, release: () => release(...kept) };
  } catch (error) {
    await release(...taken());
    throw error;
  }
}

/** Runs `cleanup` after the test, once its processes are gone. */
export function cleanUpAfterTest(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

/** Kills `child` after the test, if it is still running then. */
export function killAfterTest<T extends ChildProcess>(child: T): T {
  children.push(child);
  return child;
}

/** A fresh folder for this test, removed after it. */
export async function tempDir(): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'foxbell-test-'));
  folders.push(folder);
  return folder;
}

/** Other Nodes to run on too, by path (`FOXBELL_EXTRA_NODES`, separated by `:`): CI names 22 and 24. */
export const EXTRA_NODES = (process.env.FOXBELL_EXTRA_NODES ?? '').split(':').filter((node) => node !== '');

/**
 * Runs a script to its end, as a terminal would: its exit code, stdout and stderr. By this run's
 * Node, or by another program (another Node, bash).
 */
export function runScript(
  file: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  node = process.execPath,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      node,
      [file, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000, ...(cwd ? { cwd } : {}) },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}
