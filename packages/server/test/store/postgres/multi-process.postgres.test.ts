import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgres/schema.js';
import { type Reply, send } from '../../helpers.js';
import { ADMIN, startOutsideSimulator, startProcess, tempDir } from '../../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

const ACCOUNTS = 40;
const SENDS = 2000;
const PER_TOKEN = 20;
const PER_ACCOUNT = 30;
const WORKER_CONCURRENCY = 32;

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** Runs `work` over `items` with at most `limit` at once. */
async function inParallel<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T, index);
      }
    }),
  );
  return results;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('several API and worker processes on one PostgreSQL', () => {
  it('delivers every accepted send once (plus what a worker killed with -9 had in flight), within every limit', async () => {
    const schema = newTestSchema();
    const dir = await tempDir();
    const { sim, apnsArgs } = await startOutsideSimulator(dir);
    closing.push(() => sim.close());
    const database = ['--database', TEST_DATABASE_URL, '--database-schema', schema, '--log-level', 'warn'];
    const api = [
      '--log-level',
      'warn',
      '--admin-key',
      ADMIN,
      '--no-workers',
      '--rate-per-token',
      String(PER_TOKEN),
      '--rate-per-account',
      String(PER_ACCOUNT),
    ];
    const worker = [
      'worker',
      ...database,
      ...apnsArgs,
      ...['--workers', String(WORKER_CONCURRENCY), '--lease-seconds', '2'],
    ];
    const workerReady = /worker (wrk_\w+) delivering from postgres/;
    // All four start at once on an empty schema: the migrations run once.
    // One API is told where the database is by flags, the other by its environment.
    const [api1, api2, worker1, worker2] = await Promise.all([
      startProcess([...database, ...api]),
      startProcess(api, { FOXBELL_DATABASE_URL: TEST_DATABASE_URL, FOXBELL_DATABASE_SCHEMA: schema }),
      startProcess(worker, {}, workerReady),
      startProcess(worker, {}, workerReady),
    ]);
    const apis = [api1.url, api2.url];

    const db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    await db.connect();
    closing.push(() => db.end());
    const count = async (sql: string, values: unknown[] = []) =>
      Number((await db.query(sql, values)).rows[0].n);
    expect(await count('SELECT count(*) AS n FROM foxbell_migrations')).toBe(POSTGRES_MIGRATIONS.length);

    // Accounts with two tokens and an iPhone and a watch each, made through either API.
    const accounts = await inParallel(
      Array.from({ length: ACCOUNTS }, (_, i) => i),
      8,
      async (i) => {
        const url = apis[i % 2] as string;
        const account = await send(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
        const tokens: string[] = [];
        for (let t = 0; t < 2; t += 1) {
          tokens.push(
            (await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body.token,
          );
        }
        for (const platform of ['ios', 'watchos']) {
          const pushToken = `${i.toString(16).padStart(4, '0')}${platform === 'ios' ? 'a' : 'b'}`.padEnd(
            64,
            'c',
          );
          // Each push takes a while to respond, so a busy worker always has some in flight.
          sim.script(pushToken, Array(2 * PER_ACCOUNT).fill({ delay_ms: 100 }));
          const device = await send(url, 'POST', '/v1/devices', {
            token: account.body.key,
            json: { name: platform, platform, push_token: pushToken },
          });
          expect(device.status, device.text).toBe(201);
        }
        return { id: account.body.id as string, tokens };
      },
    );

    // 2,000 sends, 50 per account, alternating tokens and APIs; every tenth is also retried with
    // its idempotency key through the other API at the same moment.
    let done = 0;
    let killedLeases = -1;
    const started = Date.now();
    const sends = Array.from({ length: SENDS }, (_, i) => ({
      account: accounts[i % ACCOUNTS] as { id: string; tokens: string[] },
      token: (accounts[i % ACCOUNTS] as { tokens: string[] }).tokens[Math.floor(i / ACCOUNTS) % 2] as string,
      url: apis[i % 2] as string,
      other: apis[(i + 1) % 2] as string,
      key: i % 10 === 0 ? `retry-${i}` : undefined,
    }));
    const replies = await inParallel(sends, 24, async (s) => {
      const request = (url: string) =>
        send(url, 'POST', '/v1/notifications', {
          token: s.token,
          json: { message: 'Build passed', scene: 'rocket' },
          ...(s.key === undefined ? {} : { headers: { 'idempotency-key': s.key } }),
        });
      let reply: Reply;
      if (s.key === undefined) reply = await request(s.url);
      else {
        const [first, retry] = await Promise.all([request(s.url), request(s.other)]);
        expect([retry?.status, retry?.body?.id]).toEqual([first?.status, first?.body?.id]);
        reply = first as Reply;
      }
      done += 1;
      if (done === SENDS / 2) {
        // Halfway: kill a worker while it holds leases, that is, mid-push. It is stopped first, so
        // the leases read are the ones it dies with: a running worker on a loaded machine can
        // finish every push between a read and the kill. Rows it holds can only be pushed twice,
        // and a commit it sent before the stop only lowers what is pushed twice, but for a claim:
        // one it sent just before the stop may commit after a first read, so the leases are read
        // until they hold still.
        const held = () =>
          count(`SELECT count(*) AS n FROM destinations WHERE state = 'sending' AND lease_owner = $1`, [
            worker1.url,
          ]);
        const heldWhenStill = async () => {
          for (let last = await held(); ; ) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            const now = await held();
            if (now === last) return now;
            last = now;
          }
        };
        await until(
          'worker 1 is stopped holding a lease',
          async () => {
            worker1.child.kill('SIGSTOP');
            killedLeases = await heldWhenStill();
            if (killedLeases > 0) return true;
            worker1.child.kill('SIGCONT');
            return false;
          },
          10_000,
        );
        worker1.child.kill('SIGKILL');
        await worker1.exited;
      }
      expect([202, 429]).toContain(reply.status);
      return { ...s, reply };
    });
    const sendingTookMs = Date.now() - started;
    // Every count below is within one minute window only if the sends took less than a minute.
    expect(sendingTookMs).toBeLessThan(55_000);

    const accepted = replies.filter((r) => r.reply.status === 202);
    expect(new Set(accepted.map((r) => r.reply.body.id)).size).toBe(accepted.length);
    for (const r of replies.filter((r) => r.reply.status === 429)) {
      expect(r.reply.body.error.code).toBe('rate_limited');
    }
    // No limit admitted more than its limit, and each account was held to exactly its own.
    for (const account of accounts) {
      const mine = accepted.filter((r) => r.account === account);
      expect(mine).toHaveLength(PER_ACCOUNT);
      for (const token of account.tokens) {
        expect(mine.filter((r) => r.token === token).length).toBeLessThanOrEqual(PER_TOKEN);
      }
    }
    expect(new Set(accepted.map((r) => r.url))).toEqual(new Set(apis));

    // Every accepted notification reaches a final state, the killed worker's leases included.
    await until(
      'every destination is final',
      async () =>
        (await count('SELECT count(*) AS n FROM route_queue')) === 0 &&
        (await count(`SELECT count(*) AS n FROM destinations WHERE state IN ('pending', 'sending')`)) === 0,
      60_000,
    );
    expect(await count('SELECT count(*) AS n FROM notifications')).toBe(accepted.length);
    const states = await db.query(
      'SELECT n.id, n.status, d.state, d.push_id FROM notifications n JOIN destinations d ON d.notification_id = n.id',
    );
    expect(states.rows).toHaveLength(accepted.length * 2);
    for (const row of states.rows) {
      expect(row.state).toBe('accepted');
      expect(row.status).toBe('sent_to_push');
    }
    const sample = accepted[accepted.length - 1] as (typeof accepted)[number];
    const status = await send(api2.url, 'GET', `/v1/notifications/${sample.reply.body.id}/status`, {
      token: sample.token,
    });
    expect([status.status, status.body.status]).toEqual([200, 'sent_to_push']);

    // Each device got each notification once, or twice where the killed worker's push reached
    // APNs but its response died with it.
    const pushes = new Map<string, number>();
    for (const push of sim.received()) pushes.set(push.apns_id, (pushes.get(push.apns_id) ?? 0) + 1);
    let duplicates = 0;
    for (const row of states.rows) {
      const times = pushes.get(row.push_id) ?? 0;
      expect(times).toBeGreaterThanOrEqual(1);
      expect(times).toBeLessThanOrEqual(2);
      duplicates += times - 1;
    }
    expect(pushes.size).toBe(states.rows.length);
    console.info(
      `multi-process: ${accepted.length} accepted of ${SENDS} sends in ${sendingTookMs} ms, ` +
        `${states.rows.length} destinations, ${duplicates} pushed twice; ` +
        `the killed worker held ${killedLeases} leases`,
    );
    expect(killedLeases).toBeGreaterThan(0);
    expect(duplicates).toBeLessThanOrEqual(killedLeases);

    worker2.child.kill('SIGTERM');
    expect(await worker2.exited).toEqual({ code: 0, signal: null });
  }, 180_000);
});
