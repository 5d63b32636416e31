import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, inject } from 'vitest';
import { ADMIN_KEY, type Service, spawnService } from './service.js';

/** The built `notify`, as users run it. */
export const NOTIFY_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin.cjs');
export { ADMIN_KEY };

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'notify-test-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export type { Service };

/**
 * The real `foxbell-server` process on a free port, with its built-in APNs simulator; stopped after
 * the file. For a service with settings of its own: most files share the run's (`sharedService`).
 */
export async function startService(extraArgs: string[] = []): Promise<Service> {
  const { service, stop } = await spawnService(await tempDir(), extraArgs);
  cleanups.push(stop);
  return service;
}

/**
 * The services every file of the run shares (test/global-setup.ts starts them): `default` with the
 * server's default settings, `relaxed` with rate limits high enough for a file that sends many
 * times with one token. Tests on them make accounts of their own and stop nothing.
 */
export function sharedService(kind: 'default' | 'relaxed' = 'default'): Service {
  return inject('cliServices')[kind];
}

export async function call(url: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201) throw new Error(`${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Push tokens of this file's devices: unique in the run, whose services all files share. */
const FILE_ID = randomBytes(4).toString('hex');
let pushTokens = 0;

export interface Account {
  key: string;
  token: string;
  /** Push tokens of the iPhone, the watch and the headset, in that order. */
  pushTokens: [string, string, string];
}

/** An account with an iPhone, a watch and a Vision Pro and one send token, made through the management API. */
export async function createAccount(
  service: Service,
  tokenOptions: Record<string, unknown> = {},
): Promise<Account> {
  const account = await call(`${service.url}/v1/accounts`, ADMIN_KEY, {});
  const key = account.key as string;
  const tokens: string[] = [];
  for (const [name, platform] of [
    ["Ana's iPhone", 'ios'],
    ["Ana's Watch", 'watchos'],
    ["Ana's Vision Pro", 'visionos'],
  ]) {
    pushTokens += 1;
    const push_token = `${FILE_ID}${pushTokens.toString(16).padStart(8, '0')}`.padStart(64, 'c');
    await call(`${service.url}/v1/devices`, key, { name, platform, push_token });
    tokens.push(push_token);
  }
  const token = (await call(`${service.url}/v1/tokens`, key, tokenOptions)).token as string;
  return { key, token, pushTokens: tokens as [string, string, string] };
}

/** What the simulator received for one device: the APNs payloads, oldest first. */
export async function pushesTo(service: Service, pushToken: string): Promise<Record<string, unknown>[]> {
  if (!service.simUrl) throw new Error('This service delivers nothing: it runs with --no-workers');
  const response = await fetch(`${service.simUrl}/v1/pushes?push_token=${pushToken}`);
  const { pushes } = (await response.json()) as { pushes: { payload: Record<string, unknown> }[] };
  return pushes.map((push) => push.payload);
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NotifyOptions {
  /** Added to a clean environment (PATH, a private HOME and config file; no CI, no NOTIFY_*). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then closed; without it stdin is an empty pipe. */
  input?: string;
  /** The working folder; the test runner's without it. */
  cwd?: string;
}

/** Runs the built `notify` as a separate process, as a terminal or CI step would. */
export async function notify(args: string[], options: NotifyOptions = {}): Promise<Run> {
  const home = await tempDir();
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    NOTIFY_CONFIG: join(home, 'config', 'config.json'),
    ...options.env,
  };
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [NOTIFY_BIN, ...args],
      {
        env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
        ...(options.cwd === undefined ? {} : { cwd: options.cwd, timeout: 10_000 }),
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
      },
    );
    if (options.input === undefined) child.stdin?.end();
    else child.stdin?.end(options.input);
  });
}

/** The env that points `notify` at a service with a token. */
export function using(service: Service, token: string): Record<string, string> {
  return { NOTIFY_BASE_URL: service.url, NOTIFY_TOKEN: token };
}
