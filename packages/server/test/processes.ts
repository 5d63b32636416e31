import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll } from 'vitest';
import { newProviderKeyPem } from '../src/apns/provider-token.js';
import { ApnsSimulator } from '../src/apns/simulator.js';

/** foxbell-server as real processes, killed after each test. */

export const BIN = fileURLToPath(new URL('../bin/foxbell-server.js', import.meta.url));
export const ADMIN = 'process-test-admin-key';

export interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

beforeAll(() => {
  if (!existsSync(fileURLToPath(new URL('../dist/server.js', import.meta.url)))) {
    throw new Error('packages/server is not built: run `pnpm build` (pnpm test does it first)');
  }
});

/**
 * Starts `foxbell-server` as a real process and waits for the line `ready` matches (by default its
 * `listening on` line); `url` is what the pattern captured.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string> = {},
  ready = /listening on (http:\/\/\S+)/,
): Promise<Running> {
  const child = spawn(process.execPath, [BIN, ...(args[0] === 'worker' ? [] : ['--port', '0']), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), 10_000);
    child.stdout?.on('data', () => {
      const match = ready.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => reject(new Error(`exited before listening; stderr: ${stderr}`)));
  });
  return { child, url, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs `foxbell-server` with settings it must refuse, and returns its exit code and standard error. */
export async function runToExit(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stderr };
}

export async function tempDir() {
  return mkdtemp(path.join(tmpdir(), 'foxbell-process-'));
}

/**
 * An APNs simulator in the test process, for servers in other processes to push to: what each
 * push reached survives their crashes. Returns it and the flags that point a server at it.
 */
export async function startOutsideSimulator(
  dir: string,
): Promise<{ sim: ApnsSimulator; apnsArgs: string[] }> {
  const key = { keyId: 'KEY0000001', teamId: 'TEAM000001', keyPem: newProviderKeyPem() };
  // The tests that use it count every push by apns-id: it remembers a whole run.
  const sim = await ApnsSimulator.start({ keys: [key], history: { perDevice: 100_000, total: 100_000 } });
  await writeFile(path.join(dir, 'ca.pem'), sim.ca as string);
  await writeFile(path.join(dir, 'key.p8'), key.keyPem);
  const apnsArgs = [
    ...['--apns-url', sim.url, '--apns-ca', path.join(dir, 'ca.pem')],
    ...[
      '--apns-key-file',
      path.join(dir, 'key.p8'),
      '--apns-key-id',
      key.keyId,
      '--apns-team-id',
      key.teamId,
    ],
  ];
  return { sim, apnsArgs };
}
