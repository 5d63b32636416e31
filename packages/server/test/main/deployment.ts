import { randomBytes } from 'node:crypto';
import { Foxbell, FoxbellError } from '@foxbell/sdk';
import { type PrivatePostgres, privatePostgres } from '@foxbell/test-support/private-postgres';
import pg from 'pg';
import { expect } from 'vitest';
import type { ApnsSimulator } from '../../src/simulator/simulator.js';
import { send } from '../helpers.js';
import {
  ADMIN,
  BIN,
  freePort,
  type Running,
  startOutsideSimulator,
  startProcess,
  tempDir,
  UNLIMITED,
} from '../processes.js';
import { runShippedCaddy } from '../shipped-caddy.js';

/**
 * A deployment as docs/deploy.md runs one for several machines, on one machine: API processes
 * and workers on a PostgreSQL of the test's own (which the test may stop and start), pushing to an
 * APNs simulator in the test's process (which outlives every server process). For the tests of
 * what clients see while a part fails.
 */
export interface Deployment {
  postgres: PrivatePostgres;
  sim: ApnsSimulator;
  /** The API processes by slot: each slot keeps its port, so a process replacing another is found there. */
  apis: Running[];
  /** Each API slot's address (`127.0.0.1:PORT`), for a proxy in front of them. */
  apiAddresses: string[];
  workers: Running[];
  /** Starts an API process in `slot` (its port), of `bin`'s release (default: this checkout's, the newest). */
  startApi(slot: number, bin?: string): Promise<Running>;
  /** Starts another worker on the same database. */
  startWorker(bin?: string): Promise<Running>;
  /** Marks a process the test stops or kills itself: its exit is not a crash. */
  retire(process: Running): void;
  /** Stops a process as an operator would (SIGTERM), and waits for it to end. */
  stop(process: Running): Promise<void>;
  /**
   * Resolves once a proxy's health check found this release's API process ready (its request log
   * shows a 200 for /readyz): from then on the proxy sends it requests, and the next process may stop.
   */
  proxied(process: Running): Promise<void>;
  /** Rejects when a process exits that the test did not retire: a crash. */
  crashed: Promise<never>;
  /** One statement on a connection of its own, so it works across the database's restarts. */
  query(sql: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Accounts made at start, each with a simulated iPhone and a send token. */
  accounts: { key: string; token: string }[];
}

export async function startDeployment({
  apis = 2,
  workers = 2,
  accounts = 4,
  bin = BIN,
}: {
  apis?: number;
  workers?: number;
  accounts?: number;
  /** The foxbell-server entry script the first processes run: another release's, for an upgrade. */
  bin?: string;
} = {}): Promise<Deployment> {
  const postgres = await privatePostgres();
  const ports = await Promise.all(Array.from({ length: apis }, () => freePort()));
  const dir = await tempDir();
  const { sim, apnsArgs } = await startOutsideSimulator(dir);
  const database = ['--database', postgres.url, '--log-level', 'warn'];
  const retired = new Set<Running>();
  let crash: (error: Error) => void = () => {};
  const crashed = new Promise<never>((_, reject) => {
    crash = reject;
  });
  // Told of only through a wait that races it (load.progress): a test that never waits on it
  // must not fail on its rejection.
  crashed.catch(() => {});
  const watched = async (starting: Promise<Running>, what: string) => {
    const running = await starting;
    void running.exited.then(({ code, signal }) => {
      if (!retired.has(running)) {
        crash(new Error(`${what} exited (${code ?? signal}); stderr: ${running.stderr().slice(-12000)}`));
      }
    });
    return running;
  };
  // Only settings every release since 0.1 knows (a rolling upgrade starts older ones), and for
  // this one's API processes a drain longer than Caddy's health-check interval, as deploy.md says.
  const startApi = (slot: number, release = BIN) =>
    watched(
      startProcess(
        [
          ...database,
          '--no-workers',
          '--port',
          String(ports[slot]),
          ...UNLIMITED,
          // Request lines at info, for `proxied` to see a proxy's health checks arrive.
          ...(release === BIN ? ['--drain-seconds', '3', '--log-level', 'info'] : []),
        ],
        { FOXBELL_ADMIN_KEY: ADMIN },
        undefined,
        release,
      ),
      `the API process in slot ${slot}`,
    );
  const startWorker = (release = BIN) =>
    watched(
      startProcess(
        ['worker', ...database, ...apnsArgs, '--lease-seconds', '2'],
        {},
        /worker (wrk_\w+) delivering/,
        release,
      ),
      'a worker',
    );
  // The first runs the migrations alone: the others would wait on its lock anyway.
  const first = await startApi(0, bin);
  const deployment: Deployment = {
    postgres,
    sim,
    apis: [first, ...(await Promise.all(Array.from({ length: apis - 1 }, (_, i) => startApi(i + 1, bin))))],
    apiAddresses: ports.map((port) => `127.0.0.1:${port}`),
    workers: await Promise.all(Array.from({ length: workers }, () => startWorker(bin))),
    startApi,
    startWorker,
    retire: (process) => retired.add(process),
    async stop(process) {
      retired.add(process);
      process.child.kill('SIGTERM');
      await process.exited;
    },
    async proxied(process) {
      await expect
        .poll(() => /"path":"\/readyz","client":"[^"]*","status":200/.test(process.stderr()), {
          timeout: 20_000,
          interval: 50,
        })
        .toBe(true);
    },
    crashed,
    async query(sql, values = []) {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows;
      } finally {
        await client.end();
      }
    },
    accounts: [],
  };
  for (let i = 0; i < accounts; i += 1) {
    const url = first.url;
    const account = await send(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const device = await send(url, 'POST', '/v1/devices', {
      token: account.body.key,
      json: { name: `iPhone ${i}`, platform: 'ios', push_token: randomBytes(32).toString('hex') },
    });
    const token = await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
    expect([device.status, token.status]).toEqual([201, 201]);
    deployment.accounts.push({ key: account.body.key, token: token.body.token });
  }
  return deployment;
}

/** What one of the clients saw: a retry the SDK made, or a call it gave up after its retries. */
export interface ClientEvent {
  kind: 'retry' | 'gave_up';
  at: number;
  status: number | undefined;
  code: string | undefined;
  waitMs?: number;
}

export interface Load {
  /** Idempotency key → the notification id its send was accepted as. */
  accepted: Map<string, string>;
  /** Every retry and every call given up, in order: the clients' log. */
  events: ClientEvent[];
  /** When each send was first tried and when it was accepted, by key. */
  timings: Map<string, { first: number; accepted: number }>;
  /** Resolves once `count` more sends are accepted than now; rejects if a process crashes first. */
  progress(count: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Clients on the SDK sending without pause, one per account, each to the API `baseUrl(i)` names
 * (a proxy in front of several, or one each). Each send has an idempotency key; a call the SDK
 * gave up on (its three retries spent) is called again with the same key, as an app that must not
 * lose a notification would, so every key ends accepted once.
 */
export function sendContinuously(deployment: Deployment, baseUrl: (client: number) => string): Load {
  const accepted = new Map<string, string>();
  const events: ClientEvent[] = [];
  const timings = new Map<string, { first: number; accepted: number }>();
  let waiters: { target: number; resolve: () => void }[] = [];
  let sending = true;
  const loops = deployment.accounts.map(async (account, i) => {
    const client = new Foxbell({
      token: account.token,
      baseUrl: baseUrl(i),
      logLevel: 'off',
      onRetry: (info) =>
        events.push({
          kind: 'retry',
          at: Date.now(),
          status: info.status,
          code: info.code,
          waitMs: info.waitMs,
        }),
    });
    for (let n = 0; sending; n += 1) {
      const key = `client-${i}-send-${n}`;
      const first = Date.now();
      for (;;) {
        try {
          const sent = await client.send({ message: key }, { idempotencyKey: key });
          accepted.set(key, sent.id as string);
          timings.set(key, { first, accepted: Date.now() });
          break;
        } catch (error) {
          if (!(error instanceof FoxbellError)) throw error;
          const { status } = error as { status?: number };
          events.push({ kind: 'gave_up', at: Date.now(), status, code: error.code });
        }
      }
      waiters = waiters.filter((waiter) => {
        if (accepted.size < waiter.target) return true;
        waiter.resolve();
        return false;
      });
    }
  });
  return {
    accepted,
    events,
    timings,
    progress(count) {
      return Promise.race([
        new Promise<void>((resolve) => waiters.push({ target: accepted.size + count, resolve })),
        deployment.crashed,
      ]);
    },
    async stop() {
      sending = false;
      await Promise.all(loops);
    },
  };
}

/**
 * Every accepted send is stored once, as its key's one notification, and reaches a final state:
 * pushed to its device. Waits for the workers to finish, then checks the database and the pushes.
 */
export async function expectEveryAcceptedSendDelivered(deployment: Deployment, load: Load): Promise<void> {
  const count = async (sql: string) => Number((await deployment.query(sql))[0]?.n);
  await expect
    .poll(
      async () =>
        (await count('SELECT count(*) AS n FROM route_queue')) +
        (await count(`SELECT count(*) AS n FROM destinations WHERE state IN ('pending', 'sending')`)),
      { timeout: 60_000, interval: 200 },
    )
    .toBe(0);
  const rows = await deployment.query(
    `SELECT n.id, n.payload::json->>'message' AS key, n.status, d.state, d.push_id
       FROM notifications n JOIN destinations d ON d.notification_id = n.id`,
  );
  // One notification per key, the one its client was told of, each pushed.
  expect(rows).toHaveLength(load.accepted.size);
  const stored = new Map(rows.map((row) => [row.key as string, row]));
  expect(stored.size).toBe(load.accepted.size);
  for (const [key, id] of load.accepted) {
    const row = stored.get(key);
    expect({ key, id: row?.id, state: row?.state, status: row?.status }).toEqual({
      key,
      id,
      state: 'accepted',
      status: 'sent_to_push',
    });
  }
  const pushed = new Set(deployment.sim.received().map((push) => push.apns_id));
  for (const row of rows) expect(pushed.has(row.push_id as string)).toBe(true);
}

/**
 * The clients saw only responses the SDK retries: `503 service_unavailable` (with its
 * `Retry-After`), a proxy's `502`/`503`, or no response at all. Never a `500` or another error.
 */
export function expectOnlyRetriedResponses(load: Load): void {
  for (const event of load.events) {
    expect(
      event.status === undefined ||
        (event.status === 503 && (event.code === 'service_unavailable' || event.code === undefined)) ||
        event.status === 502,
      JSON.stringify(event),
    ).toBe(true);
  }
}

/**
 * Each process is still running after a fault, and wrote no unhandled error: Node reports one
 * before it exits, so a crash under way is caught too.
 */
export function expectStillRunning(processes: Running[]): void {
  for (const running of processes) {
    expect({ exitCode: running.child.exitCode, stderr: running.stderr() }).toEqual({
      exitCode: null,
      stderr: expect.not.stringContaining('Unhandled'),
    });
  }
}

/**
 * Caddy with deploy/Caddyfile as it ships, in front of `upstreams`, on plain HTTP on a port of its
 * own (the site's name says so; the shipped file's health checks and retries are untouched).
 * Resolves once a request through it reaches an API process.
 */
export async function startCaddy(upstreams: string[]): Promise<{ url: string; log: () => string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { log } = await runShippedCaddy({ dir: await tempDir(), domain: url, upstreams });
  await expect
    .poll(async () => (await send(url, 'GET', '/healthz', {}).catch(() => ({ status: 0 }))).status, {
      timeout: 20_000,
      interval: 100,
    })
    .toBe(200);
  return { url, log };
}

/**
 * What the clients lived through during a fault (sends first tried while it was on, retries and
 * calls given up while it was on), for docs/reliability.md.
 */
export interface FaultFigures {
  /** Sends accepted, and retries the SDK made. */
  accepted: number;
  retries: number;
  /** Calls given up after the SDK's retries (each then called again with its key). */
  gaveUp: number;
  /** The longest a send waited from its first try to its 202, and the median, in ms. */
  longestWaitMs: number;
  medianWaitMs: number;
  /** The responses the SDK retried, by status and code (`none`: no response at all). */
  retried: Record<string, number>;
  /** The longest time without a push from the fault's start until pushes went on after it, in ms. */
  longestPushGapMs: number;
}

export function faultFigures(
  load: Load,
  sim: ApnsSimulator,
  fault: { start: number; end: number },
): FaultFigures {
  const during = (at: number) => at >= fault.start && at <= fault.end;
  const sends = [...load.timings.values()].filter(({ first }) => during(first));
  const events = load.events.filter((event) => during(event.at));
  const waits = sends.map(({ first, accepted }) => accepted - first).sort((a, b) => a - b);
  const pushes = sim
    .received()
    .map((push) => Date.parse(push.at))
    .sort((a, b) => a - b);
  const firstAfter = pushes.find((at) => at >= fault.end) ?? fault.end;
  const gaps = [fault.start, ...pushes.filter((at) => at > fault.start && at < firstAfter), firstAfter];
  const retried: Record<string, number> = {};
  for (const event of events) {
    if (event.kind !== 'retry') continue;
    const answer = event.status === undefined ? 'none' : `${event.status} ${event.code ?? ''}`.trim();
    retried[answer] = (retried[answer] ?? 0) + 1;
  }
  return {
    accepted: sends.length,
    retries: events.filter((event) => event.kind === 'retry').length,
    gaveUp: events.filter((event) => event.kind === 'gave_up').length,
    longestWaitMs: waits[waits.length - 1] ?? 0,
    medianWaitMs: waits[Math.floor(waits.length / 2)] ?? 0,
    retried,
    longestPushGapMs: Math.max(...gaps.slice(1).map((at, i) => at - (gaps[i] as number))),
  };
}
