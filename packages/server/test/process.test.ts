import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { send } from './helpers.js';

const BIN = fileURLToPath(new URL('../bin/foxbell-server.js', import.meta.url));
const ADMIN = 'process-test-admin-key';

interface Running {
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

/** Starts `foxbell-server` as a real process and waits for its `listening on` line. */
async function startProcess(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [BIN, '--port', '0', ...args], {
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
    const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 10_000);
    child.stdout?.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => reject(new Error(`exited before listening; stderr: ${stderr}`)));
  });
  return { child, url, stdout: () => stdout, stderr: () => stderr, exited };
}

async function tempDir() {
  return mkdtemp(path.join(tmpdir(), 'foxbell-process-'));
}

async function accountWithToken(url: string) {
  const account = await send(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
  const token = await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
  return { key: account.body.key as string, token: token.body.token as string };
}

describe('foxbell-server, the process', () => {
  it('prints "listening on http://HOST:PORT" on stdout once it takes requests, on a free port', async () => {
    const server = await startProcess(['--data', await tempDir(), '--admin-key', ADMIN]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const reply = await send(server.url, 'GET', '/v1/scenes', { token: ADMIN });
    expect(reply.status).toBe(200);
  });

  it('loses nothing it answered 202 for when killed with SIGKILL', async () => {
    const data = await tempDir();
    const first = await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    const { token } = await accountWithToken(first.url);
    const replies = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        send(first.url, 'POST', '/v1/notifications', { token, json: { message: `n${i}` } }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(25).fill(202));
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    for (const reply of replies) {
      const status = await send(second.url, 'GET', `/v1/notifications/${reply.body.id}/status`, { token });
      expect(status.status).toBe(200);
      expect(status.body.id).toBe(reply.body.id);
    }
  });

  it('stops on SIGTERM after finishing the requests in flight, and exits 0', async () => {
    const server = await startProcess([
      '--data',
      await tempDir(),
      '--admin-key',
      ADMIN,
      '--log-level',
      'warn',
    ]);
    const { token } = await accountWithToken(server.url);
    const inFlight = send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'last' } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(202);
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('lists every bad setting and exits 2', async () => {
    const child = spawn(process.execPath, [BIN, '--port', 'eighty', '--log-level', 'loud'], {
      env: { ...process.env, FOXBELL_RATE_PER_TOKEN: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port (FOXBELL_PORT) must be an integer from 0 to 65535, not "eighty"');
    expect(stderr).toContain('--log-level (FOXBELL_LOG_LEVEL)');
    expect(stderr).toContain('--rate-per-token (FOXBELL_RATE_PER_TOKEN)');
  });

  it('takes settings from FOXBELL_* variables, a flag winning over its variable', async () => {
    const server = await startProcess(['--data', await tempDir(), '--admin-key', ADMIN], {
      FOXBELL_ADMIN_KEY: 'a-different-admin-key',
      FOXBELL_MONTHLY_QUOTA: '7',
    });
    const { token } = await accountWithToken(server.url);
    const reply = await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
    expect(reply.headers.get('x-ratelimit-limit')).toBe('7');
  });

  it('never writes a token to its log, the URL-token path included', async () => {
    const server = await startProcess([
      '--data',
      await tempDir(),
      '--admin-key',
      ADMIN,
      '--log-level',
      'info',
    ]);
    const { key, token } = await accountWithToken(server.url);
    await send(server.url, 'GET', `/v1/send/${token}?message=hi`);
    await send(server.url, 'GET', `/v1/send/${token}x?message=hi`);
    await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
    server.child.kill('SIGTERM');
    await server.exited;
    const log = server.stderr();
    expect(log).toContain('/v1/send/<redacted>?message=hi');
    for (const secret of [token, key, ADMIN, token.slice(9)]) expect(log).not.toContain(secret);
  });

  it('seeds a dev account with three devices and a token on the first --dev start, and reuses it after', async () => {
    const data = await tempDir();
    const first = await startProcess(['--data', data, '--dev', '--log-level', 'warn']);
    const token = /send token: (fox_send_[A-Za-z0-9]{32})/.exec(first.stdout())?.[1];
    expect(token).toBeDefined();
    const devices = await send(first.url, 'GET', '/v1/devices', { token: token as string });
    expect(devices.body.devices).toEqual([
      { name: 'iPhone', platform: 'ios' },
      { name: 'Apple Watch', platform: 'watchos' },
      { name: 'Vision Pro', platform: 'visionos' },
    ]);
    first.child.kill('SIGTERM');
    await first.exited;
    const second = await startProcess(['--data', data, '--dev', '--log-level', 'warn']);
    expect(second.stdout()).toContain(`send token: ${token}`);
    const again = await send(second.url, 'GET', '/v1/devices', { token: token as string });
    expect(again.body.devices).toHaveLength(3);
    const saved = JSON.parse(await readFile(path.join(data, 'dev.json'), 'utf8'));
    expect(saved.token).toBe(token);
  });
});
