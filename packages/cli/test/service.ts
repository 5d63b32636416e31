import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * A real `foxbell-server` process for the CLI's tests. A module of its own, without vitest's
 * hooks: the run's global set-up starts the shared services with it, where no test exists.
 */

const SERVER_BIN = join(
  dirname(createRequire(import.meta.url).resolve('@foxbell/server/package.json')),
  'bin',
  'foxbell-server.js',
);
export const ADMIN_KEY = 'cli-test-admin-key-0123456789abcdefg';

export interface Service {
  url: string;
  /** The built-in APNs simulator's control API (what each device was pushed); none with --no-workers. */
  simUrl: string | undefined;
}

/**
 * The Node that runs the server. The CLI's suite also runs on Node 22, the CLI's floor, where the
 * server (24 and newer) does not: CI then names a newer Node here.
 */
const SERVER_NODE = process.env.FOXBELL_SERVER_NODE ?? process.execPath;

/** `foxbell-server` on a free port with its data in `dataDir` and its built-in APNs simulator, and how to stop it. */
export async function spawnService(
  dataDir: string,
  extraArgs: string[] = [],
): Promise<{ service: Service; stop: () => Promise<void> }> {
  const child = spawn(
    SERVER_NODE,
    [
      SERVER_BIN,
      ...['--port', '0', '--data', dataDir, '--admin-key', ADMIN_KEY, '--log-level', 'warn'],
      // The tests read what the simulator took through its control API.
      '--apns-sim-control',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  let printed = '';
  try {
    const service = await new Promise<Service>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        printed += chunk;
      });
      child.stdout.on('data', (chunk) => {
        printed += chunk;
        // The simulator's line comes first, when there is a simulator.
        const url = printed.match(/listening on (http:\/\/\S+)/)?.[1];
        const simUrl = printed.match(/simulator control API on (http:\/\/\S+)/)?.[1];
        if (url) resolve({ url, simUrl });
      });
      child.on('exit', (code) => reject(new Error(`foxbell-server exited ${code}: ${printed}`)));
    });
    return { service, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
