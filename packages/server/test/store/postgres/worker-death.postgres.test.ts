import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../../helpers.js';
import { ADMIN, type Running, startOutsideSimulator, startProcess, tempDir } from '../../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

/** FOXBELL_LONG=1: twenty deaths instead of two (docs/reliability.md). */
const DEATHS = process.env.FOXBELL_LONG === '1' ? 20 : 2;
/** After a worker dies, every notification it held is sent to push by the other within this. */
const RECOVERY_MS = 10_000;
const SENDS_PER_DEATH = 80;

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe('a worker killed with -9 on PostgreSQL', () => {
  it(
    'has what it held in flight pushed by the worker still alive within 10 s, with the default lease',
    async () => {
      const schema = newTestSchema();
      const dir = await tempDir();
      const { sim, apnsArgs } = await startOutsideSimulator(dir);
      closing.push(() => sim.close());
      const database = ['--database', TEST_DATABASE_URL, '--database-schema', schema, '--log-level', 'warn'];
      const api = await startProcess([
        ...[...database, '--admin-key', ADMIN, '--no-workers'],
        ...['--rate-per-token', '100000', '--rate-per-account', '100000'],
      ]);
      const workerArgs = ['worker', ...database, ...apnsArgs, '--workers', '16'];
      const startWorker = () => startProcess(workerArgs, {}, /worker (wrk_\w+) delivering from postgres/);
      const workers: Running[] = await Promise.all([startWorker(), startWorker()]);

      const db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
      await db.connect();
      closing.push(() => db.end());
      const count = async (sql: string, values: unknown[] = []) =>
        Number((await db.query(sql, values)).rows[0].n);

      const account = await send(api.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
      const token = (await send(api.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body
        .token;
      for (const [i, platform] of ['ios', 'watchos'].entries()) {
        const pushToken = String(i + 3).repeat(64);
        // Slow responses: each worker always has pushes out when the kill comes.
        sim.script(pushToken, Array(DEATHS * SENDS_PER_DEATH * 2).fill({ delay_ms: 150 }));
        await send(api.url, 'POST', '/v1/devices', {
          token: account.body.key,
          json: { name: platform, platform, push_token: pushToken },
        });
      }

      const accepted: string[] = [];
      const recoveries: number[] = [];
      let leasedAtDeath = 0;
      for (let death = 0; death < DEATHS; death += 1) {
        // The burst waits in the database while the workers are stopped, so that they have a
        // backlog to take when they go on: on a loaded machine sends one at a time arrive slower
        // than two workers push them, and there was nothing in flight left to kill.
        for (const worker of workers) worker.child.kill('SIGSTOP');
        for (let i = 0; i < SENDS_PER_DEATH; i += 1) {
          const reply = await send(api.url, 'POST', '/v1/notifications', {
            token,
            json: { message: `burst ${death}` },
          });
          expect(reply.status, reply.text).toBe(202);
          accepted.push(reply.body.id);
        }
        for (const worker of workers) worker.child.kill('SIGCONT');
        const victim = workers[death % 2] as Running;
        const held = `SELECT count(*) AS n FROM destinations WHERE state = 'sending' AND lease_owner = $1`;
        const deadline = Date.now() + 10_000;
        while ((await count(held, [victim.url])) === 0) {
          if (Date.now() > deadline) throw new Error('the worker to kill never held a lease');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        victim.child.kill('SIGKILL');
        const died = Date.now();
        await victim.exited;
        leasedAtDeath += await count(held, [victim.url]);
        while (
          (await count('SELECT count(*) AS n FROM route_queue')) +
            (await count(`SELECT count(*) AS n FROM destinations WHERE state IN ('pending', 'sending')`)) >
          0
        ) {
          if (Date.now() - died > RECOVERY_MS)
            throw new Error(`death ${death}: not all sent ${RECOVERY_MS} ms after it`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        recoveries.push(Date.now() - died);
        // A new worker takes the dead one's place for the next round.
        workers[death % 2] = await startWorker();
      }

      expect(leasedAtDeath).toBeGreaterThan(0);
      const statuses = await db.query('SELECT status, count(*) AS n FROM notifications GROUP BY status');
      expect(statuses.rows.map((row) => [row.status, Number(row.n)])).toEqual([
        ['sent_to_push', accepted.length],
      ]);
      // Each destination reached APNs once, or twice where a dead worker's push got there before its response was lost.
      const pushes = new Map<string, number>();
      for (const push of sim.received()) pushes.set(push.apns_id, (pushes.get(push.apns_id) ?? 0) + 1);
      const destinations = (await db.query('SELECT push_id FROM destinations')).rows as { push_id: string }[];
      expect(destinations).toHaveLength(accepted.length * 2);
      let duplicates = 0;
      for (const { push_id } of destinations) {
        const times = pushes.get(push_id) ?? 0;
        expect(times).toBeGreaterThanOrEqual(1);
        expect(times).toBeLessThanOrEqual(2);
        duplicates += times - 1;
      }
      expect(duplicates).toBeLessThanOrEqual(leasedAtDeath);
      const sorted = [...recoveries].sort((x, y) => x - y);
      console.info(
        `worker death on postgres: ${DEATHS} kill -9, ${accepted.length} accepted, ${leasedAtDeath} leased at the deaths, ` +
          `${duplicates} pushed twice; all sent to push within ${sorted.at(-1)} ms of a death ` +
          `(median ${sorted[Math.floor(sorted.length / 2)]} ms)`,
      );
      for (const worker of workers) worker.child.kill('SIGTERM');
      await Promise.all(workers.map((worker) => worker.exited));
    },
    60_000 + DEATHS * 20_000,
  );
});
