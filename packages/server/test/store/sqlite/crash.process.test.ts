import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../../helpers.js';
import { ADMIN, startOutsideSimulator, startProcess, tempDir } from '../../processes.js';

/** FOXBELL_LONG=1: twenty crashes instead of three (docs/reliability.md). */
const CRASHES = process.env.FOXBELL_LONG === '1' ? 20 : 3;
/** After a restart, every notification accepted before the crash is sent to push within this. */
const RECOVERY_MS = 10_000;
const CONCURRENCY = 16;

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe('crash safety', () => {
  it(
    'loses nothing it responded with 202 for when killed with -9 at random points of sends and deliveries, and resumes delivery within 10 s of each restart',
    async () => {
      const dir = await tempDir();
      const data = path.join(dir, 'data');
      // The simulator lives in the test, so what each push reached survives the server's crashes.
      const { sim, apnsArgs } = await startOutsideSimulator(dir);
      closing.push(() => sim.close());
      const args = [
        // The default lease: what the pushes in flight held when the process died is released at start.
        ...['--data', data, '--admin-key', ADMIN, '--log-level', 'warn'],
        ...['--rate-per-token', '100000', '--rate-per-account', '100000'],
        ...apnsArgs,
      ];

      let server = await startProcess(args);
      const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
      const token = (await send(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body
        .token;
      for (const [i, platform] of ['ios', 'watchos'].entries()) {
        const pushToken = String(i + 1).repeat(64);
        // Slow responses: pushes are in flight when the kill comes.
        sim.script(pushToken, Array(5000).fill({ delay_ms: 20 }));
        await send(server.url, 'POST', '/v1/devices', {
          token: account.body.key,
          json: { name: platform, platform, push_token: pushToken },
        });
      }

      const db = new DatabaseSync(path.join(data, 'foxbell.db'), { readOnly: true });
      closing.push(async () => db.close());
      const unsettled = () =>
        (
          db
            .prepare(
              `SELECT (SELECT count(*) FROM notifications WHERE routed_at IS NULL) +
               (SELECT count(*) FROM destinations WHERE state IN ('pending', 'sending')) AS n`,
            )
            .get() as { n: number }
        ).n;

      const accepted: string[] = [];
      const recoveries: number[] = [];
      /** Destinations each dead process left leased: what the restart had to take over. */
      let leasedAtKill = 0;
      for (let crash = 0; crash < CRASHES; crash += 1) {
        // Sends from many clients at once until a random number more were accepted; then kill -9
        // in the middle of them (the kill lands wherever the clients and the worker then are).
        let sending = true;
        const killAfter = accepted.length + 40 + Math.floor(Math.random() * 200);
        let reached: () => void = () => {};
        const enoughAccepted = new Promise<void>((resolve) => {
          reached = resolve;
        });
        const clients = Array.from({ length: CONCURRENCY }, async () => {
          while (sending) {
            const reply = await send(server.url, 'POST', '/v1/notifications', {
              token,
              json: { message: `crash ${crash}` },
            }).catch(() => undefined);
            if (reply?.status === 202) {
              accepted.push(reply.body.id);
              if (accepted.length >= killAfter) reached();
            } else if (reply && reply.status !== 202)
              throw new Error(`answered ${reply.status}: ${reply.text}`);
            else return;
          }
        });
        await Promise.race([enoughAccepted, Promise.all(clients)]);
        server.child.kill('SIGKILL');
        sending = false;
        await Promise.all(clients);
        expect((await server.exited).signal).toBe('SIGKILL');
        // What the dead process left leased: its pushes in flight, and responses it had not yet
        // written. Only these can reach APNs twice.
        const leased = db.prepare(`SELECT count(*) AS n FROM destinations WHERE state = 'sending'`).get() as {
          n: number;
        };
        const restarted = Date.now();
        server = await startProcess(args);
        // Everything accepted so far, the pushes the crash cut off included, is sent to push soon.
        while (unsettled() > 0) {
          if (Date.now() - restarted > RECOVERY_MS) {
            throw new Error(
              `crash ${crash}: ${unsettled()} still unsettled ${RECOVERY_MS} ms after the restart`,
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        recoveries.push(Date.now() - restarted);
        leasedAtKill += leased.n;
      }

      // After the last restart: every 202 is there and reached a final state; nothing stays sending.
      expect(accepted.length).toBeGreaterThan(0);
      const statuses = new Map(
        (db.prepare('SELECT id, status FROM notifications').all() as { id: string; status: string }[]).map(
          (row) => [row.id, row.status],
        ),
      );
      for (const id of accepted) expect(statuses.get(id), id).toBe('sent_to_push');
      // Those stored whose 202 the crash cut off are delivered too: a client retrying with its key gets them.
      expect(new Set(statuses.values())).toEqual(new Set(['sent_to_push']));
      const destinations = db.prepare(`SELECT push_id, state FROM destinations`).all() as {
        push_id: string;
        state: string;
      }[];
      expect(new Set(destinations.map((d) => d.state))).toEqual(new Set(['accepted']));

      // Each destination reached APNs once, or once more for a crash that cut off its response.
      const pushes = new Map<string, number>();
      for (const push of sim.received()) pushes.set(push.apns_id, (pushes.get(push.apns_id) ?? 0) + 1);
      let duplicates = 0;
      for (const { push_id } of destinations) {
        const times = pushes.get(push_id) ?? 0;
        expect(times).toBeGreaterThanOrEqual(1);
        expect(times).toBeLessThanOrEqual(1 + CRASHES);
        duplicates += times - 1;
      }
      // At most what each crash left leased.
      expect(duplicates).toBeLessThanOrEqual(leasedAtKill);
      // The kills came while pushes were out, so restarts had leases to take over.
      expect(leasedAtKill).toBeGreaterThan(0);
      const sorted = [...recoveries].sort((x, y) => x - y);
      console.info(
        `crash safety: ${accepted.length} accepted over ${CRASHES} kill -9, ${statuses.size} stored, ` +
          `${destinations.length} destinations, ${duplicates} pushed again after a crash, ${leasedAtKill} leased at the kills; ` +
          `all sent to push within ${sorted.at(-1)} ms of a restart (median ${sorted[Math.floor(sorted.length / 2)]} ms, ` +
          `the start of the process included)`,
      );
    },
    60_000 + CRASHES * 20_000,
  );
});
