import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
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

/**
 * foxbell-server as real processes, killed after each test: what every package's tests share is in
 * @foxbell/test-support; what only the server's tests need is here.
 */
export {
  ADMIN,
  BIN,
  EXTRA_NODES,
  freePort,
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
