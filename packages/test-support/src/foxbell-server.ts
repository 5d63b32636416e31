import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAfterTest, tempDir } from './processes.js';

/**
 * The built `foxbell-server` of this checkout, by its place in the workspace: the SDK's tests run
 * it too, and the SDK cannot depend on the server's package (the server depends on the SDK).
 */
export const BIN = fileURLToPath(new URL('../../server/bin/foxbell-server.js', import.meta.url));
export const ADMIN = 'process-test-admin-key-0123456789abc';
/**
 * The Node that runs the server (24 and newer). The SDK's and the CLI's suites also run on Node 22,
 * their floor: CI then names a newer Node here.
 */
const SERVER_NODE = process.env.FOXBELL_SERVER_NODE ?? process.execPath;
/**
 * How long a process may take to say it is ready. Four starting at once on PostgreSQL (one runs the
 * migrations, the others wait for them) beside a loaded test file took over 10 s in CI.
 */
const READY_TIMEOUT_MS = 30_000;

/**
 * Said once, where a process is started, rather than as a timeout: checked there and not when this
 * module is imported, since tests that start no process import its helpers too (`pnpm test:fast`
 * builds only the SDK).
 */
function requireBuiltServer(): void {
  if (!existsSync(fileURLToPath(new URL('../../server/dist/server.js', import.meta.url)))) {
    throw new Error('packages/server is not built: run `pnpm build` (pnpm test does it first)');
  }
}

export interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `foxbell-server` as a real process, killed after the test, and waits for the line `ready`
 * matches (by default its `listening on` line); `url` is what the pattern captured.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string> = {},
  ready = /listening on (http:\/\/\S+)/,
  /** Another foxbell-server entry script (one installed from a package); default: this checkout's. */
  bin = BIN,
): Promise<Running> {
  if (bin === BIN) requireBuiltServer();
  const child = killAfterTest(
    spawn(SERVER_NODE, [bin, ...(args[0] === 'worker' ? [] : ['--port', '0']), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
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
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), READY_TIMEOUT_MS);
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

/** One JSON call to a running server: its status and parsed body. */
export async function call(
  url: string,
  method: string,
  path: string,
  { token, json }: { token?: string; json?: unknown } = {},
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read field by field.
): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
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
  const account = await call(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
  const device = await call(server.url, 'POST', '/v1/devices', {
    token: account.body.key,
    json: { name: 'iPhone', platform: 'ios', push_token: 'c'.repeat(64) },
  });
  const token = await call(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
  if (device.status !== 201 || token.status !== 201) throw new Error(`setup: ${device.text} ${token.text}`);
  return { server, accountKey: account.body.key, token: token.body.token };
}

/**
 * A foxbell-server on HTTPS with `certificate` (one that is its own CA), written into `dir`
 * (cert.pem, key.pem, and ca.pem for clients to trust), as an operator gives it
 * `--tls-cert`/`--tls-key`.
 */
export async function startTlsProcess(
  dir: string,
  certificate: { cert: string; key: string },
  logLevel = 'warn',
): Promise<{ server: Running; files: { cert: string; key: string; ca: string } }> {
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
  return { server, files };
}
