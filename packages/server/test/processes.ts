import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ADMIN,
  BIN,
  killAfterTest,
  type Running,
  startProcess,
  startTlsProcess,
  tempDir,
} from '@foxbell/test-support';
import { newProviderKeyPem } from '../src/delivery/apns/provider-token.js';
import { localCertificate } from '../src/simulator/local-certificate.js';
import { ApnsSimulator } from '../src/simulator/simulator.js';
import { send } from './helpers.js';

/**
 * foxbell-server as real processes, killed after each test: what every package's tests share is in
 * @foxbell/test-support; what only the server's tests need is here.
 */
export {
  ADMIN,
  BIN,
  cleanUpAfterTest,
  EXTRA_NODES,
  freePort,
  keptForAll,
  type Running,
  runScript,
  startProcess,
  startServerWithToken,
  tempDir,
} from '@foxbell/test-support';
export const APNS_SIM_BIN = fileURLToPath(new URL('../bin/foxbell-apns-sim.js', import.meta.url));

/**
 * A foxbell-server on a fresh data directory with the test admin key (in its variable, as an
 * operator should give it: a flag is warned of), logging warnings only.
 */
export async function startQuietServer(extra: string[] = []): Promise<Running> {
  return startProcess(['--data', await tempDir(), '--log-level', 'warn', ...extra], {
    FOXBELL_ADMIN_KEY: ADMIN,
  });
}

/** Runs `foxbell-server` with settings it must reject, and returns its exit code and standard error. */
export async function runToExit(
  args: string[],
  env: Record<string, string> = {},
  {
    node = process.execPath,
    nodeArgs = [],
    bin = BIN,
  }: { node?: string; nodeArgs?: string[]; bin?: string } = {},
) {
  const child = killAfterTest(
    spawn(node, [...nodeArgs, bin, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stderr };
}

/** A foxbell-server on HTTPS with a local certificate that is its own CA (see startTlsProcess). */
export async function startHttpsServer(
  dir: string,
  { commonName, logLevel = 'warn' }: { commonName: string; logLevel?: string },
) {
  const certificate = await localCertificate(commonName);
  return { ...(await startTlsProcess(dir, certificate, logLevel)), certificate };
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

/** Rate limits no test that sends without pause reaches. */
export const UNLIMITED = ['--rate-per-token', '100000', '--rate-per-account', '100000'];

/**
 * Sends without pause to a running server (started with UNLIMITED), as an account with one
 * simulated iPhone that the server's workers deliver to: every notification accepted so far, in
 * order, until `stop`.
 */
export async function keepSending(url: string) {
  const account = await send(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
  const device = await send(url, 'POST', '/v1/devices', {
    token: account.body.key,
    json: { name: 'iPhone', platform: 'ios', push_token: randomBytes(32).toString('hex') },
  });
  if (device.status !== 201) throw new Error(`${device.status} ${device.text}`);
  const token = (await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body
    .token as string;
  const accepted: string[] = [];
  let sending = true;
  const sender = (async () => {
    for (let i = 0; sending; i++) {
      const reply = await send(url, 'POST', '/v1/notifications', { token, json: { message: `m${i}` } });
      if (reply.status !== 202) throw new Error(`${reply.status} ${reply.text}`);
      accepted.push(reply.body.id);
    }
  })();
  return {
    token,
    accepted,
    async stop() {
      sending = false;
      await sender;
    },
  };
}

/** One HTTPS request that trusts `ca`, as a client with it in its store would: status, headers, JSON body. */
export function httpsJson(
  url: string,
  ca: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      url,
      { method: init.method ?? 'GET', headers: init.headers ?? {}, ca },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: new Headers(response.headers as Record<string, string>),
            body: JSON.parse(text || '{}'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}
