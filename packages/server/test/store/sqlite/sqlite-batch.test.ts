import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite/open.js';
import type { RateLimits, Store } from '../../../src/store/store.js';
import { tempDir } from '../../processes.js';
import { accountWithDevices, LIMITS, newSend, T0 } from '../../store-fixtures.js';

/**
 * SQLite stores the sends that arrive together in one transaction, which waits for no fsync to
 * run, and writes the batch's rate-window and monthly counts once per row. These tests hold it to
 * the same results as one send at a time, on disk (the store contract holds both databases to the
 * rest).
 */

const open: Store[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

async function storeIn(dataDir: string): Promise<Store> {
  const store = openSqliteStore({ dataDir });
  open.push(store);
  return store;
}

describe('SQLite send batches', () => {
  it('writes a batch’s counts to disk: a store opened on the same data reads them back', async () => {
    const dir = await tempDir();
    const first = await storeIn(dir);
    const { account, token } = await accountWithDevices(first);
    const limits: RateLimits = { ...LIMITS, perTokenPerMinute: 1000, perAccountPerMinute: 7 };
    const batch = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        first.acceptSend(newSend(account, token, T0 + i * 300, { limits })),
      ),
    );
    expect(batch.map((o) => o.kind)).toEqual(Array(6).fill('accepted'));
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = await storeIn(dir);
    expect(await second.monthlyCount(account.id, T0)).toBe(6);
    expect((await second.acceptSend(newSend(account, token, T0 + 2_000, { limits }))).kind).toBe('accepted');
    // Room returns when the first second's 4 sends leave the window: at T0 + 60 s, 58 s away
    // (rounded up), which only holds if the batch's counts were kept per second.
    expect(await second.acceptSend(newSend(account, token, T0 + 2_001, { limits }))).toEqual({
      kind: 'rate_limited',
      scope: 'account',
      limit: 7,
      retryAfterSeconds: 58,
      monthlyCount: 7,
    });
    // A new month starts from zero, whatever the old one holds.
    const december = Date.parse('2026-12-01T00:00:00.000Z');
    expect(await second.acceptSend(newSend(account, token, december, { limits }))).toMatchObject({
      kind: 'accepted',
      monthlyCount: 1,
    });
  });

  it('commits every send handed over before close, even those waiting for an fsync to end', async () => {
    const dir = await tempDir();
    const first = await storeIn(dir);
    const { account, token } = await accountWithDevices(first);
    const sends = Array.from({ length: 20 }, (_, i) => newSend(account, token, T0 + i));
    // Half go in before an fsync starts (the first commit starts one), half while it runs.
    const early = sends.slice(0, 10).map((send) => first.acceptSend(send));
    await new Promise((resolve) => setImmediate(resolve));
    const late = sends.slice(10).map((send) => first.acceptSend(send));
    await first.close();
    open.splice(open.indexOf(first), 1);
    expect((await Promise.all([...early, ...late])).map((o) => o.kind)).toEqual(Array(20).fill('accepted'));

    const second = await storeIn(dir);
    for (const send of sends) expect((await second.getNotification(send.id))?.status).toBe('accepted');
    expect(await second.monthlyCount(account.id, T0)).toBe(20);
  });

  it('commits a send while other writes keep the disk busy: they cannot hold it back', async () => {
    const store = await storeIn(await tempDir());
    const { account, token } = await accountWithDevices(store);
    let writing = true;
    let writes = 0;
    // Ten writers, each starting its next write as soon as the last is on disk: an fsync is
    // nearly always running, and others always wait for the next one.
    const writers = Array.from({ length: 10 }, async (_, writer) => {
      while (writing && writes < 5_000) {
        await store.setSetting(`busy-${writer}`, String(writes++));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outcome = await store.acceptSend(newSend(account, token, T0));
    const writesWhenStored = writes;
    writing = false;
    await Promise.all(writers);
    expect(outcome.kind).toBe('accepted');
    expect(writesWhenStored).toBeLessThan(5_000);
  });
});
