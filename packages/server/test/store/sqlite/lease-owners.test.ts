import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { routeNotification } from '../../../src/model/routing.js';
import { openSqliteStore } from '../../../src/store/sqlite/open.js';
import type { Store } from '../../../src/store/store.js';
import { tempDir } from '../../processes.js';
import { accountWithDevices, newSend, T0 } from '../../store-fixtures.js';

const open: Store[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

function storeIn(dataDir: string, role: 'api' | 'worker' = 'api'): Store {
  const store = openSqliteStore({ dataDir, role });
  open.push(store);
  return store;
}

async function close(store: Store): Promise<void> {
  open.splice(open.indexOf(store), 1);
  await store.close();
}

describe('SQLite lease owners', () => {
  it('ends at start the leases of a worker whose process is gone, and keeps those of one still alive', async () => {
    const dir = await tempDir();
    const first = storeIn(dir);
    // A worker process beside the API, which stays alive through the API's restart.
    const worker = storeIn(dir, 'worker');
    const { account, token, devices } = await accountWithDevices(first, ['ios', 'watchos']);
    const [phone, watch] = devices.map((device) => device.id);
    const sent = newSend(account, token, T0);
    await first.acceptSend(sent);
    // The API process's own worker leases the phone's push as it routes; the other process, the watch's.
    const { claimed } = await first.routeQueued({
      now: T0,
      limit: 10,
      decide: (input) => routeNotification(input, T0, randomUUID),
      lease: { owner: 'wrk_gone', leaseMs: 6_000, limit: 1, unreadFor: [] },
    });
    expect(claimed.map((d) => d.deviceId)).toEqual([phone]);
    const { claimed: other } = await worker.claimDestinations({
      owner: 'wrk_alive',
      now: T0,
      leaseMs: 6_000,
      limit: 10,
      maxAttempts: 5,
      unreadFor: [],
    });
    expect(other.map((d) => d.deviceId)).toEqual([watch]);
    expect(existsSync(path.join(dir, 'owners', 'wrk_gone.lock'))).toBe(true);

    // The API process ends without its worker finishing (its locks end with it), and starts again.
    await close(first);
    const second = storeIn(dir);
    // One second later, long before either lease would run out: the dead worker's push is taken
    // over at once, as a second attempt; the live worker's stays its own.
    const { claimed: taken } = await second.claimDestinations({
      owner: 'wrk_new',
      now: T0 + 1_000,
      leaseMs: 6_000,
      limit: 10,
      maxAttempts: 5,
      unreadFor: [],
    });
    expect(taken.map((d) => [d.deviceId, d.attempt])).toEqual([[phone, 2]]);
    await worker.finishAttempts(
      [
        {
          notificationId: sent.id,
          deviceId: watch as string,
          owner: 'wrk_alive',
          end: { kind: 'accepted', pushStatus: 200 },
        },
      ],
      T0 + 1_000,
    );
    expect((await second.getNotification(sent.id))?.destinations.map((d) => d.state)).toEqual([
      'sending',
      'accepted',
    ]);
    expect(readdirSync(path.join(dir, 'owners')).sort()).toEqual([
      'wrk_alive.lock',
      'wrk_alive.lock-journal',
      'wrk_new.lock',
      'wrk_new.lock-journal',
    ]);
  });
});
