import { execFile } from 'node:child_process';
import { chown, readdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';
import { cleanUpAfterTest, tempDir } from './processes.js';

const run = promisify(execFile);

/**
 * A PostgreSQL server of one test's own, in a temporary folder on a free port: one that a test may
 * stop, restart or kill without touching the PostgreSQL every other test shares. Stopped and removed
 * after the test.
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  /** Stops it: `fast` ends every session with `57P01`, as `pg_ctl stop -m fast` does in a restart. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
}

/**
 * The folder of PostgreSQL's server programs: `FOXBELL_POSTGRES_BIN`, else Debian's newest
 * `/usr/lib/postgresql/N/bin`, else wherever `initdb` is on PATH.
 */
async function serverPrograms(): Promise<string> {
  if (process.env.FOXBELL_POSTGRES_BIN) return process.env.FOXBELL_POSTGRES_BIN;
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  const newest = versions
    .map(Number)
    .filter(Number.isFinite)
    .sort((a, b) => b - a)[0];
  if (newest !== undefined) return `/usr/lib/postgresql/${newest}/bin`;
  const { stdout } = await run('sh', ['-c', 'command -v initdb']).catch(() => ({ stdout: '' }));
  if (stdout.trim() === '') {
    throw new Error('this test runs a PostgreSQL of its own and found no initdb (set FOXBELL_POSTGRES_BIN)');
  }
  return path.dirname(stdout.trim());
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const bin = await serverPrograms();
  const dir = await tempDir();
  const data = path.join(dir, 'data');
  const port = await freePort();
  // PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user, which
  // then owns the folder.
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout), Number(group));
  }
  const pg = (program: string, args: string[]) =>
    run(
      asRoot ? 'runuser' : path.join(bin, program),
      asRoot ? ['-u', 'postgres', '--', path.join(bin, program), ...args] : args,
      { timeout: 60_000 },
    );
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // A test's database need not survive the machine: what is measured is the processes above it.
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');
  let running = false;
  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await pg('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      running = false;
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    },
  };
  cleanUpAfterTest(async () => {
    if (running) await server.stop('immediate');
  });
  await server.start();
  return server;
}
