import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS } from '../../src/kernel/clock.js';
import { PURGE_BATCH } from '../../src/kernel/retention.js';
import { openPostgresStore } from '../../src/store/postgres/open.js';
import { type Purged, sweepRetention } from '../../src/store/retention-sweep.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';
import type { Store } from '../../src/store/store.js';
import { accountWithDevices, newSend, T0 } from '../store-fixtures.js';
import { newTestSchema, openTestStore, TEST_DATABASE_URL, TEST_STORE } from '../test-database.js';

const opened: Store[] = [];
const folders: string[] = [];
const databases: string[] = [];
/** Sends out of time order: no rate window or quota in the way. */
const limits = { perTokenPerMinute: 1e9, perAccountPerMinute: 1e9, perAccountPerMonth: 1e9 };
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const database of databases.splice(0)) await onAdmin(`DROP DATABASE ${database} WITH (FORCE)`);
});

/** Runs `sql` on the tests' database (CREATE DATABASE and DROP DATABASE run on another). */
async function onAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('the retention sweep', () => {
  it('deletes what is past retention in transactions of at most 500 rows of each kind, the oldest first, and keeps the rest', async () => {
    const store = await openTestStore();
    opened.push(store);
    const { account, token } = await accountWithDevices(store, ['ios']);
    // 1,100 sends a minute apart, 40 days before the clock's time, stored newest first (so that
    // the order rows were written in is not the order of their age), and 3 within the 30 days.
    const count = 1_100;
    const sentAt = (i: number) => T0 + i * MINUTE_MS;
    const expired: string[] = [];
    for (let i = count - 1; i >= 0; i--) {
      const outcome = await store.acceptSend(newSend(account, token, sentAt(i), { limits }));
      expect(outcome.kind).toBe('accepted');
      expired[i] = (outcome as { id: string }).id;
    }
    const now = T0 + 40 * DAY_MS;
    const kept: string[] = [];
    for (const daysAgo of [29, 10, 1]) {
      kept.push(
        (
          (await store.acceptSend(newSend(account, token, now - daysAgo * DAY_MS, { limits }))) as {
            id: string;
          }
        ).id,
      );
    }

    const purges: Purged[] = [];
    const afterFirst: { oldestGone: boolean; nextKept: boolean }[] = [];
    const watched: Pick<Store, 'purge' | 'reclaim'> = {
      reclaim: (purged) => store.reclaim(purged),
      async purge(cutoffs, batch) {
        const purged = await store.purge(cutoffs, batch);
        purges.push(purged);
        if (purges.length === 1) {
          afterFirst.push({
            oldestGone: (await store.getNotification(expired[PURGE_BATCH - 1] as string)) === undefined,
            nextKept: (await store.getNotification(expired[PURGE_BATCH] as string)) !== undefined,
          });
        }
        return purged;
      },
    };
    const total = await sweepRetention(watched, { now: () => now });

    expect(PURGE_BATCH).toBe(500);
    expect(purges.map((purged) => purged.notifications).slice(0, 3)).toEqual([500, 500, 100]);
    for (const purged of purges) {
      for (const deleted of Object.values(purged)) expect(deleted).toBeLessThanOrEqual(PURGE_BATCH);
    }
    // It stops at the first purge that finds fewer than a batch of every kind.
    expect(Object.values(purges.at(-1) as Purged).every((deleted) => deleted < PURGE_BATCH)).toBe(true);
    expect(
      Object.values(purges.slice(0, -1)).every((p) => Object.values(p).some((n) => n === PURGE_BATCH)),
    ).toBe(true);
    expect(afterFirst).toEqual([{ oldestGone: true, nextKept: true }]);
    expect(total.notifications).toBe(count);
    expect(total.windows).toBe(purges.reduce((sum, purged) => sum + purged.windows, 0));
    for (const id of [expired[0], expired[count - 1]])
      expect(await store.getNotification(id as string)).toBeUndefined();
    for (const id of kept) expect((await store.getNotification(id))?.id).toBe(id);
  });

  it('stops between two purges once told to, with what it deleted so far', async () => {
    const store = await openTestStore();
    opened.push(store);
    const { account, token } = await accountWithDevices(store, ['ios']);
    for (let i = 0; i < 30; i++) await store.acceptSend(newSend(account, token, T0 + i * MINUTE_MS));
    const stopping = new AbortController();
    let purges = 0;
    const total = await sweepRetention(
      {
        reclaim: (purged) => store.reclaim(purged),
        async purge(cutoffs, batch) {
          purges += 1;
          stopping.abort();
          return store.purge(cutoffs, batch);
        },
      },
      { now: () => T0 + 40 * DAY_MS },
      { batch: 10, signal: stopping.signal },
    );
    expect(purges).toBe(1);
    expect(total.notifications).toBe(10);
  });

  it('has the room of what it deleted reclaimed once, and only when it deleted something', async () => {
    const store = await openTestStore();
    opened.push(store);
    const { account, token } = await accountWithDevices(store, ['ios']);
    for (let i = 0; i < 30; i++) await store.acceptSend(newSend(account, token, T0 + i * MINUTE_MS));
    const reclaimed: Purged[] = [];
    const watched: Pick<Store, 'purge' | 'reclaim'> = {
      purge: (cutoffs, batch) => store.purge(cutoffs, batch),
      async reclaim(purged) {
        reclaimed.push(purged);
        await store.reclaim(purged);
      },
    };
    const clock = { now: () => T0 + 40 * DAY_MS };
    const total = await sweepRetention(watched, clock, { batch: 10 });
    expect(total.notifications).toBe(30);
    expect(reclaimed).toEqual([total]);
    // A sweep with nothing to delete leaves the database alone.
    await sweepRetention(watched, clock, { batch: 10 });
    expect(reclaimed).toHaveLength(1);
  });

  it('keeps the database the same size over cycles of sends and sweeps: deleted rows make room for new ones', async () => {
    const opening = await openSized();
    const { store } = opening;
    opened.push(store);
    const { account, token } = await accountWithDevices(store, ['ios']);
    const sizes: number[] = [];
    for (let cycle = 0; cycle < 5; cycle++) {
      for (let i = 0; i < 250; i++) {
        await store.acceptSend(newSend(account, token, T0 + cycle * DAY_MS + i * 1000, { limits }));
      }
      const total = await sweepRetention(store, { now: () => T0 + (cycle + 40) * DAY_MS });
      expect(total.notifications).toBe(250);
      sizes.push(await opening.size());
    }
    // Without reclaiming, each cycle's 250 notifications would add their room to the last's. The
    // first three cycles make the working size: PostgreSQL reuses an index page that one VACUUM
    // emptied only once the next has run.
    const working = sizes[2] as number;
    for (const size of sizes.slice(3)) {
      expect(size, `sizes ${sizes.join(', ')}`).toBeLessThanOrEqual(working * 1.05);
    }
    await opening.vacuumed?.();
  });
});

/**
 * A store of the kind this run tests, with how many bytes its database takes: SQLite's file
 * (pages on its free list count: they are the room it writes new rows in), or the sum of the
 * schema's tables with their indexes on PostgreSQL, where it also checks that VACUUM ran.
 */
async function openSized(): Promise<{ store: Store; size(): Promise<number>; vacuumed?(): Promise<void> }> {
  if (TEST_STORE === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'foxbell-sweep-'));
    folders.push(dir);
    const store = openSqliteStore({ dataDir: dir });
    const file = path.join(dir, 'foxbell.db');
    return {
      store,
      async size() {
        const db = new DatabaseSync(file, { readOnly: true });
        try {
          const pages = db.prepare('PRAGMA page_count').get() as { page_count: number };
          const size = db.prepare('PRAGMA page_size').get() as { page_size: number };
          return pages.page_count * size.page_size;
        } finally {
          db.close();
        }
      },
    };
  }
  // A database of its own: VACUUM keeps the rows deleted after the oldest transaction still
  // running in the same database began, and other tests' transactions run in the shared one.
  const database = `${newTestSchema()}_sweep`;
  await onAdmin(`CREATE DATABASE ${database}`);
  databases.push(database);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  const schema = 'foxbell';
  const store = await openPostgresStore({ url: url.href, schema, poolSize: 4 });
  const one = async (sql: string) => {
    const client = new pg.Client({ connectionString: url.href });
    await client.connect();
    try {
      return (await client.query(sql, [schema])).rows;
    } finally {
      await client.end();
    }
  };
  return {
    store,
    size: async () =>
      Number(
        (
          await one(
            `SELECT sum(pg_total_relation_size(c.oid)) AS n FROM pg_class c
             JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = 'r'`,
          )
        )[0].n,
      ),
    async vacuumed() {
      const rows = await one(
        `SELECT relname FROM pg_stat_user_tables WHERE schemaname = $1 AND last_vacuum IS NOT NULL
           AND relname IN ('notifications', 'destinations') ORDER BY relname`,
      );
      expect(rows.map((row) => row.relname)).toEqual(['destinations', 'notifications']);
    },
  };
}
