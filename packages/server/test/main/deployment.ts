import { randomBytes } from 'node:crypto';
import { Foxbell, FoxbellError } from '@foxbell/sdk';
import { type PrivatePostgres, privatePostgres } from '@foxbell/test-support/private-postgres';
import pg from 'pg';
import { expect } from 'vitest';
import type { ApnsSimulator } from '../../src/simulator/simulator.js';
import { send } from '../helpers.js';
import {
  ADMIN,
  type Running,
  startOutsideSimulator,
  startProcess,
  tempDir,
  UNLIMITED,
} from '../processes.js';

/**
 * A deployment as docs/deploy.md runs one for several machines, on one machine: API processes
 * and workers on a PostgreSQL of the test's own (which the test may stop and start), pushing to an
 * APNs simulator in the test's process (which outlives every server process). For the tests of
 * what clients see while a part fails.
 */
export interface Deployment {
  postgres: PrivatePostgres;
  sim: ApnsSimulator;
  apis: Running[];
  workers: Running[];
  /** Starts another API process or worker on the same database. */
  startApi(): Promise<Running>;
  startWorker(): Promise<Running>;
  /** Marks a process the test stops or kills itself: its exit is not a crash. */
  retire(process: Running): void;
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
}: {
  apis?: number;
  workers?: number;
  accounts?: number;
} = {}): Promise<Deployment> {
  const postgres = await privatePostgres();
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
        crash(new Error(`${what} exited (${code ?? signal}); stderr: ${running.stderr().slice(-2000)}`));
      }
    });
    return running;
  };
  const startApi = () =>
    watched(
      startProcess([...database, '--no-workers', ...UNLIMITED], { FOXBELL_ADMIN_KEY: ADMIN }),
      'an API process',
    );
  const startWorker = () =>
    watched(
      startProcess(
        ['worker', ...database, ...apnsArgs, '--lease-seconds', '2'],
        {},
        /worker (wrk_\w+) delivering/,
      ),
      'a worker',
    );
  // The first runs the migrations alone: the others would wait on its lock anyway.
  const first = await startApi();
  const deployment: Deployment = {
    postgres,
    sim,
    apis: [first, ...(await Promise.all(Array.from({ length: apis - 1 }, startApi)))],
    workers: await Promise.all(Array.from({ length: workers }, startWorker)),
    startApi,
    startWorker,
    retire: (process) => retired.add(process),
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
    `SELECT n.id, n.payload::json->>'message' AS key, n.status, d.state, d.apns_id
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
  for (const row of rows) expect(pushed.has(row.apns_id as string)).toBe(true);
}

/**
 * The clients saw only answers the SDK retries: `503 service_unavailable` (with its
 * `Retry-After`), a proxy's `502`/`503`, or no answer at all. Never a `500` or another refusal.
 */
export function expectOnlyRetriedAnswers(load: Load): void {
  for (const event of load.events) {
    expect(
      event.status === undefined ||
        (event.status === 503 && (event.code === 'service_unavailable' || event.code === undefined)) ||
        event.status === 502,
      JSON.stringify(event),
    ).toBe(true);
  }
}
