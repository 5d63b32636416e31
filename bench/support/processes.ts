// What the benches that run foxbell-server as a process share: starting and stopping processes,
// and making accounts to load it with.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newProviderKeyPem } from '@foxbell/server';
import type autocannon from 'autocannon';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SERVER_BIN = path.join(ROOT, 'packages/server/bin/foxbell-server.js');
export const ADMIN = 'bench-admin-key-0123456789-abcdefghij';

/** Limits high enough that a bench measures the service, not the spec's per-minute limits. */
export const NO_LIMITS = [
  '--rate-per-token=1000000000',
  '--rate-per-account=1000000000',
  '--monthly-quota=1000000000000',
];

/** Processes started and not yet stopped: killed when the bench exits, however it exits. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts `node args…` and resolves once its stdout matches `ready`, with what the match captured. */
export function start(args: string[], ready: RegExp): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  running.add(child);
  child.on('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = ready.exec(out);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

/**
 * The APNs simulator over cleartext HTTP/2 with a provider key of its own (written into `work`),
 * and the settings that point foxbell-server at it.
 */
export async function startApnsSimulator(
  work: string,
): Promise<{ child: ChildProcess; url: string; serverArgs: string[] }> {
  const key = { keyId: 'BENCHKEY01', teamId: 'BENCHTEAM1', file: path.join(work, 'key.p8') };
  await writeFile(key.file, newProviderKeyPem());
  const sim = await start(
    [
      path.join(ROOT, 'packages/server/bin/foxbell-apns-sim.js'),
      '--cleartext',
      `--key-file=${key.file}`,
      `--key-id=${key.keyId}`,
      `--team-id=${key.teamId}`,
    ],
    /foxbell-apns-sim listening on (http:\/\/\S+)/,
  );
  return {
    ...sim,
    serverArgs: [
      `--apns-url=${sim.url}`,
      `--apns-key-file=${key.file}`,
      `--apns-key-id=${key.keyId}`,
      `--apns-team-id=${key.teamId}`,
    ],
  };
}

export async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function post(url: string, token: string, body: unknown): Promise<Record<string, string>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, string>;
}

/** `count` accounts with a token and an iPhone each; returns their tokens. */
export async function makeAccounts(url: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const account = await post(`${url}/v1/accounts`, ADMIN, {});
    const pushToken = randomBytes(32).toString('hex');
    await post(`${url}/v1/devices`, account.key as string, {
      name: 'Phone',
      platform: 'ios',
      push_token: pushToken,
    });
    tokens.push((await post(`${url}/v1/tokens`, account.key as string, {})).token as string);
  }
  return tokens;
}

/** autocannon's requests option: each request with the next of `tokens`. */
export function rotatingTokens(tokens: string[]): autocannon.Request[] {
  let next = 0;
  return [
    {
      setupRequest: (request) => {
        next = (next + 1) % tokens.length;
        return { ...request, headers: { ...request.headers, authorization: `Bearer ${tokens[next]}` } };
      },
    },
  ];
}
