import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll } from 'vitest';
import { newProviderKeyPem } from '../src/delivery/apns/provider-token.js';
import { localCertificate } from '../src/simulator/local-certificate.js';
import { ApnsSimulator } from '../src/simulator/simulator.js';
import { send } from './helpers.js';

/** foxbell-server as real processes, killed after each test. */

export const BIN = fileURLToPath(new URL('../bin/foxbell-server.js', import.meta.url));
export const APNS_SIM_BIN = fileURLToPath(new URL('../bin/foxbell-apns-sim.js', import.meta.url));
export const ADMIN = 'process-test-admin-key-0123456789abc';

export interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
/** Folders made by tempDir, removed once the test's processes are gone, whatever the outcome. */
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return exited;
    }),
  );
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
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
  /** Another foxbell-server entry script (one installed from a package); default: this checkout's. */
  bin = BIN,
): Promise<Running> {
  const child = spawn(process.execPath, [bin, ...(args[0] === 'worker' ? [] : ['--port', '0']), ...args], {
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

/**
 * A foxbell-server on a fresh data directory with the test admin key (in its variable, as an
 * operator should give it: a flag is warned of), logging warnings only.
 */
export async function startQuietServer(extra: string[] = []): Promise<Running> {
  return startProcess(['--data', await tempDir(), '--log-level', 'warn', ...extra], {
    FOXBELL_ADMIN_KEY: ADMIN,
  });
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

/** Runs `foxbell-server` with settings it must refuse, and returns its exit code and standard error. */
export async function runToExit(
  args: string[],
  env: Record<string, string> = {},
  {
    node = process.execPath,
    nodeArgs = [],
    bin = BIN,
  }: { node?: string; nodeArgs?: string[]; bin?: string } = {},
) {
  const child = spawn(node, [...nodeArgs, bin, ...args], {
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

/** A fresh folder for this test, removed after it. */
/** A port nothing listens on now: one the system gave a server that was then closed. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function tempDir() {
  const folder = await mkdtemp(path.join(tmpdir(), 'foxbell-process-'));
  folders.push(folder);
  return folder;
}

/**
 * A real foxbell-server process (its own data, the built-in simulator delivering) with an account
 * that has one iPhone and a send token, made through the management API.
 */
export async function startServerWithToken(): Promise<{
  server: Running;
  accountKey: string;
  token: string;
}> {
  const server = await startProcess(['--admin-key', ADMIN, '--data', await tempDir(), '--log-level', 'warn']);
  const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
  const device = await send(server.url, 'POST', '/v1/devices', {
    token: account.body.key,
    json: { name: 'iPhone', platform: 'ios', push_token: 'c'.repeat(64) },
  });
  const token = await send(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
  if (device.status !== 201 || token.status !== 201) throw new Error(`setup: ${device.text} ${token.text}`);
  return { server, accountKey: account.body.key, token: token.body.token };
}

/**
 * A foxbell-server on HTTPS with a certificate that is its own CA, written into `dir` (cert.pem,
 * key.pem, and ca.pem for clients to trust), as an operator gives it `--tls-cert`/`--tls-key`.
 */
export async function startHttpsServer(
  dir: string,
  { commonName, logLevel = 'warn' }: { commonName: string; logLevel?: string },
) {
  const certificate = await localCertificate(commonName);
  const files = {
    cert: path.join(dir, 'cert.pem'),
    key: path.join(dir, 'key.pem'),
    ca: path.join(dir, 'ca.pem'),
  };
  await Promise.all([
    writeFile(files.cert, certificate.cert),
    writeFile(files.key, certificate.key),
    writeFile(files.ca, certificate.cert),
  ]);
  const server = await startProcess(
    [
      ...['--data', path.join(dir, 'data'), '--admin-key', ADMIN, '--log-level', logLevel],
      ...['--tls-cert', files.cert, '--tls-key', files.key],
    ],
    {},
    /listening on (https:\/\/\S+)/,
  );
  return { server, certificate, files };
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
