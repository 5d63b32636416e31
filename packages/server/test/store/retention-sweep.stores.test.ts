import { afterEach, describe, expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS } from '../../src/kernel/clock.js';
import { PURGE_BATCH } from '../../src/kernel/retention.js';
import { type Purged, sweepRetention } from '../../src/store/retention-sweep.js';
import type { Store } from '../../src/store/store.js';
import { accountWithDevices, newSend, T0 } from '../store-fixtures.js';
import { openTestStore } from '../test-database.js';

const opened: Store[] = [];
/** Sends out of time order: no rate window or quota in the way. */
const limits = { perTokenPerMinute: 1e9, perAccountPerMinute: 1e9, perAccountPerMonth: 1e9 };
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

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
    const watched: Pick<Store, 'purge'> = {
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
});
