import { readFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { availableParallelism } from 'node:os';

/**
 * Ports for the servers a test starts on a port it names (a process, a private PostgreSQL, a
 * proxy), and restarts on it. A port the system picks (a listen on port 0) is one of its ephemeral
 * ports, which it also gives every outgoing connection (a database pool's, a browser's, the CLI's):
 * between the moment a test learned such a port and the moment its server listened, or listened
 * again after a restart, a connection could take it, and the server failed with EADDRINUSE. These
 * come from below the ephemeral range, where the system never picks a port by itself.
 */

/** Linux's: the first and last port of the ephemeral range, two numbers. */
const EPHEMERAL_RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
/**
 * Where the file is missing (macOS, Windows): below 32768, where Linux's range starts by default,
 * and those of macOS and Windows (49152) after it.
 */
const EPHEMERAL_FALLBACK = 32_768;
/** Not below: the ports under 10000 are those of services a developer runs (5432, 8080, 3000…). */
const LOWEST = 10_000;

let firstEphemeral: Promise<number> | undefined;
function ephemeralStart(): Promise<number> {
  firstEphemeral ??= readFile(EPHEMERAL_RANGE, 'utf8').then(
    (text) => Number(text.trim().split(/\s+/)[0]),
    () => EPHEMERAL_FALLBACK,
  );
  return firstEphemeral;
}

/**
 * vitest runs files side by side, one per worker (`VITEST_POOL_ID`, from 1, at most one worker per
 * core and at least two: vitest.config.ts), so the ports are dealt out in as many shares, by their
 * remainder: two files of one run running at once never pick the same port. Two runs at once (CI
 * runs the SDK's and the CLI's tests on two Nodes side by side) have the same pool ids, so each says
 * which it is, `FOXBELL_TEST_RUN=1/2` and `2/2`, and gets shares of its own. More workers than
 * shares (a larger `--maxWorkers`), or runs that do not say, share some, which the random pick and
 * the check by binding still cover but for a moment. Outside vitest (a benchmark), all of them.
 */
const WORKER_SHARES = Math.max(2, availableParallelism());
const run = /^(\d+)\/(\d+)$/.exec(process.env.FOXBELL_TEST_RUN ?? '1/1');
const [RUN, RUNS] = [Number(run?.[1]), Number(run?.[2])];
if (!run || RUN < 1 || RUN > RUNS) {
  throw new Error(`FOXBELL_TEST_RUN=${process.env.FOXBELL_TEST_RUN}: say which run of how many, as 1/2`);
}
const POOL_ID = Number(process.env.VITEST_POOL_ID);
const [step, share] = Number.isInteger(POOL_ID)
  ? [WORKER_SHARES * RUNS, (POOL_ID % WORKER_SHARES) + WORKER_SHARES * (RUN - 1)]
  : [1, 0];
/** This share's lowest port: the first from LOWEST whose remainder is the share's. */
const first = LOWEST + ((share - (LOWEST % step) + step) % step);

/** Ports this module handed out: never twice, so that two asked for at once differ. */
const handedOut = new Set<number>();

/**
 * The port a listen on `port` got (0: one the system picks), closed again; undefined when it is
 * taken.
 */
function listened(port: number): Promise<number | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: got } = server.address() as AddressInfo;
      server.close(() => resolve(got));
    });
  });
}

/**
 * A port nothing listens on now, below the system's ephemeral range: picked at random (from this
 * worker's share) and checked by binding it.
 */
export async function freePort(): Promise<number> {
  const end = await ephemeralStart();
  const count = Math.floor((end - first + step - 1) / step);
  // A system whose ephemeral range starts below LOWEST (some containers give 1024-65535) leaves
  // no port outside it: then one it picks, as before, racing connections for it.
  if (!(count > 0)) {
    const picked = await listened(0);
    if (picked === undefined) throw new Error('the system gave no port to listen on');
    return picked;
  }
  for (let tries = 0; tries < 100; tries++) {
    const port = first + step * Math.floor(Math.random() * count);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if ((await listened(port)) !== undefined) return port;
  }
  throw new Error(`no free port found below ${end} in 100 tries`);
}
