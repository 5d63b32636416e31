import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { PURGE_BATCH } from '../../src/kernel/retention.js';
import type { NewSend } from '../../src/model/admission.js';
import type { AttemptEnd, ClaimedDestination, FinishedAttempt } from '../../src/model/leases.js';
import type { StoredNotification } from '../../src/model/notifications.js';
import { routeNotification } from '../../src/model/routing.js';
import { isValueFault } from '../../src/store/storage-errors.js';
import { type RateLimits, RETIRED_LISTED, type Store } from '../../src/store/store.js';
import { accountWithDevices, addToken, LIMITS, newSend, T0 } from '../store-fixtures.js';
import { openSharedStores, TEST_STORE } from '../test-database.js';

/**
 * The Store contract, run on SQLite and on PostgreSQL (the `server` and `server-postgres`
 * projects). "Processes" are several stores on one database: on PostgreSQL each has its own
 * connections, as separate processes would; SQLite serves sends from one process, so there they
 * are one store.
 */

const opened: Store[][] = [];
afterEach(async () => {
  for (const stores of opened.splice(0)) for (const store of new Set(stores)) await store.close();
});

async function stores(count: number): Promise<Store[]> {
  const shared = await openSharedStores(count);
  opened.push(shared);
  return shared;
}

/** Routes what is queued without leasing it: every destination waits as `pending`. Returns how many were routed. */
const route = async (store: Store, now: number) =>
  (await store.routeQueued({ now, limit: 200, decide: (input) => routeNotification(input, now, randomUUID) }))
    .routed;

/** Leases what is due; what the store ended while claiming is read with `claimAndEnd`. */
const claimAndEnd = (store: Store, owner: string, now: number, limit = 100, leaseMs = 60_000) =>
  store.claimDestinations({ owner, now, leaseMs, limit, maxAttempts: 5, unreadFor: [] });
const claim = async (store: Store, owner: string, now: number, limit = 100, leaseMs = 60_000) =>
  (await claimAndEnd(store, owner, now, limit, leaseMs)).claimed;

/** A send the store cannot write: its payload does not serialise. */
function unstorable(send: NewSend): NewSend {
  return { ...send, notification: { ...send.notification, scene_params: { count: 1n } } };
}

/**
 * Four sends handed over together with `faulty` third: it alone fails, and the others are accepted
 * and stored, in order, counted after the `before` sends of the month. Returns why `faulty` failed.
 */
async function batchWithOneFault(
  store: Store,
  sends: NewSend[],
  faulty: NewSend,
  before: number,
): Promise<unknown> {
  const outcomes = await Promise.allSettled(
    [sends[0], sends[1], faulty, sends[2], sends[3]].map((send) => store.acceptSend(send as NewSend)),
  );
  expect(outcomes.map((o) => o.status)).toEqual([
    'fulfilled',
    'fulfilled',
    'rejected',
    'fulfilled',
    'fulfilled',
  ]);
  expect(outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))).toEqual(
    sends.map((send, index) => ({
      kind: 'accepted',
      id: send.id,
      requestId: send.requestId,
      monthlyCount: before + index + 1,
    })),
  );
  for (const send of sends) expect((await store.getNotification(send.id))?.status).toBe('accepted');
  return (outcomes[2] as PromiseRejectedResult).reason;
}

const keyOf = (d: ClaimedDestination) => `${d.notificationId}/${d.deviceId}`;

const statesOf = (n: StoredNotification | undefined) => n?.destinations.map((d) => d.state);

describe(`Store contract on ${TEST_STORE}`, () => {
  it('admits concurrent retries of one idempotency key once, from every process', async () => {
    const [a, b, c] = await stores(3);
    const { account, token } = await accountWithDevices(a as Store);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        ([a, b, c][i % 3] as Store).acceptSend(newSend(account, token, T0, { key: 'deploy-42' })),
      ),
    );
    const accepted = outcomes.filter((o) => o.kind === 'accepted');
    expect(accepted).toHaveLength(1);
    const first = accepted[0] as { id: string; requestId: string };
    expect(outcomes.filter((o) => o.kind === 'replayed')).toHaveLength(29);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ id: first.id, requestId: first.requestId });
    }
    expect(await a?.monthlyCount(account.id, T0)).toBe(1);
    const conflict = await (b as Store).acceptSend(
      newSend(account, token, T0, { key: 'deploy-42', fingerprint: 'other' }),
    );
    expect(conflict).toEqual({ kind: 'idempotency_conflict', monthlyCount: 1 });
  });

  it('admits exactly the token limit of concurrent sends, across processes, and says when room returns', async () => {
    const [a, b] = await stores(2);
    const { account, token } = await accountWithDevices(a as Store);
    const limits = { ...LIMITS, perTokenPerMinute: 7 };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ([a, b][i % 2] as Store).acceptSend(newSend(account, token, T0 + 500, { limits })),
      ),
    );
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(7);
    const limited = outcomes.filter((o) => o.kind === 'rate_limited');
    expect(limited).toHaveLength(13);
    for (const o of limited)
      expect(o).toEqual({
        kind: 'rate_limited',
        scope: 'token',
        limit: 7,
        retryAfterSeconds: 60,
        monthlyCount: 7,
      });
    // The second they were sent in leaves the window a minute later.
    expect((await (a as Store).acceptSend(newSend(account, token, T0 + 59_999, { limits }))).kind).toBe(
      'rate_limited',
    );
    expect((await (b as Store).acceptSend(newSend(account, token, T0 + 60_000, { limits }))).kind).toBe(
      'accepted',
    );
  });

  it('never admits past the monthly quota under concurrency, and counts a new month from zero', async () => {
    const [a, b] = await stores(2);
    const { account, token } = await accountWithDevices(a as Store);
    const limits = { perTokenPerMinute: 1000, perAccountPerMinute: 1000, perAccountPerMonth: 5 };
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        ([a, b][i % 2] as Store).acceptSend(newSend(account, token, T0, { limits })),
      ),
    );
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(5);
    expect(outcomes.filter((o) => o.kind === 'quota_exceeded')).toEqual(
      Array(7).fill({ kind: 'quota_exceeded', limit: 5, monthlyCount: 5 }),
    );
    const december = Date.parse('2026-12-01T00:00:00.000Z');
    expect(await (a as Store).acceptSend(newSend(account, token, december, { limits }))).toMatchObject({
      kind: 'accepted',
      monthlyCount: 1,
    });
  });

  it('fails a send it cannot store alone: the rest of its batch is stored and counted once each', async () => {
    const [store] = (await stores(1)) as [Store];
    const { account, token } = await accountWithDevices(store);
    const limits: RateLimits = { ...LIMITS, perTokenPerMinute: 5 };
    const sends = Array.from({ length: 4 }, () => newSend(account, token, T0, { limits }));
    const bad = unstorable(newSend(account, token, T0, { limits }));

    const reason = await batchWithOneFault(store, sends, bad, 0);
    expect(reason).toBeInstanceOf(TypeError);
    expect(await store.getNotification(bad.id)).toBeUndefined();
    expect(await store.monthlyCount(account.id, T0)).toBe(4);

    // The window holds the 4 stored sends, not the failed one: one more fits, the next does not.
    expect((await store.acceptSend(newSend(account, token, T0 + 10, { limits }))).kind).toBe('accepted');
    expect(await store.acceptSend(newSend(account, token, T0 + 20, { limits }))).toEqual({
      kind: 'rate_limited',
      scope: 'token',
      limit: 5,
      retryAfterSeconds: 60,
      monthlyCount: 5,
    });
  });

  it('fails a send the database refuses (its id taken) alone, after the sends before it were written: the rest are stored once', async () => {
    const [store] = (await stores(1)) as [Store];
    const { account, token } = await accountWithDevices(store);
    const first = newSend(account, token, T0);
    expect((await store.acceptSend(first)).kind).toBe('accepted');
    // Written after two sends of its batch, its notification's key taken: the database refuses it.
    const sends = Array.from({ length: 4 }, (_, i) => newSend(account, token, T0 + 1 + i));
    const taken: NewSend = { ...newSend(account, token, T0 + 3), id: first.id };
    expect(isValueFault(await batchWithOneFault(store, sends, taken, 1))).toBe(true);
    // The first send's notification is as it was.
    expect(await store.getNotification(first.id)).toMatchObject({ createdAt: T0, status: 'accepted' });
    expect(await store.monthlyCount(account.id, T0)).toBe(5);
    expect(await route(store, T0 + 10)).toBe(5);
  });

  it('leases each due destination to one worker at a time, however many claim at once', async () => {
    const [a, b, c] = await stores(3);
    const { account, token } = await accountWithDevices(a as Store, ['ios', 'watchos', 'visionos']);
    const limits = { ...LIMITS, perTokenPerMinute: 100, perAccountPerMinute: 100 };
    for (let i = 0; i < 40; i += 1) await (a as Store).acceptSend(newSend(account, token, T0, { limits }));
    // Two routers at once: each notification is routed once.
    const routed = await Promise.all([route(b as Store, T0), route(c as Store, T0)]);
    expect((routed[0] as number) + (routed[1] as number)).toBe(40);
    const claims = await Promise.all(
      ['w1', 'w2', 'w3', 'w1b', 'w2b', 'w3b'].map((owner, i) =>
        claim([a, b, c][i % 3] as Store, owner, T0, 25),
      ),
    );
    const all = claims.flat().map(keyOf);
    expect(all).toHaveLength(120);
    expect(new Set(all).size).toBe(120);
    expect(claims.flat().every((d) => d.attempt === 1)).toBe(true);
    expect(await claim(a as Store, 'late', T0)).toEqual([]);
  });

  it('leases what it routes up to the room given, as a first attempt, and leaves the rest pending for a claim', async () => {
    const [a, b] = await stores(2);
    const { account, token, devices } = await accountWithDevices(a as Store, ['ios', 'watchos', 'visionos']);
    const sent: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      sent.push(((await (a as Store).acceptSend(newSend(account, token, T0 + i))) as { id: string }).id);
    }
    const [first, second, third] = sent as [string, string, string];
    const { routed, claimed } = await (b as Store).routeQueued({
      now: T0 + 2,
      limit: 200,
      decide: (input) => routeNotification(input, T0 + 2, randomUUID),
      lease: { owner: 'w', leaseMs: 30_000, limit: 4, unreadFor: [] },
    });
    // Routing decides queued sends until their destinations fill the room (the last one's other
    // devices overrun it): two. The third stays queued, not written ahead of any lease.
    expect(routed).toBe(2);
    expect(claimed.map((d) => [d.notificationId, d.platform, d.attempt])).toEqual([
      [first, 'ios', 1],
      [first, 'watchos', 1],
      [first, 'visionos', 1],
      [second, 'ios', 1],
    ]);
    const [iphone] = devices;
    expect(claimed[0]).toEqual({
      notificationId: first,
      deviceId: iphone?.id,
      platform: 'ios',
      address: iphone?.address,
      addressSince: iphone?.createdAt,
      pushId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      attempt: 1,
      senderName: 'CI',
      notification: expect.objectContaining({ message: 'Build passed', target: 'auto' }),
      createdAt: T0,
      expiresAt: T0 + 3_600_000,
      // An APNs device: its app keeps its own badge.
      unread: null,
    });
    expect(statesOf(await (a as Store).getNotification(first))).toEqual(['sending', 'sending', 'sending']);
    expect(statesOf(await (a as Store).getNotification(second))).toEqual(['sending', 'pending', 'pending']);

    // What waits is claimed as usual (the second send's rest); the third is routed by the next call.
    expect((await claim(a as Store, 'v', T0 + 2)).map((d) => [d.notificationId, d.platform])).toEqual([
      [second, 'watchos'],
      [second, 'visionos'],
    ]);
    expect(await (a as Store).getNotification(third)).toMatchObject({ destinations: [] });
    expect(await route(a as Store, T0 + 2)).toBe(1);
    expect(statesOf(await (a as Store).getNotification(third))).toEqual(Array(3).fill('pending'));

    // A destination leased by routing ends, and is taken over, like a claimed one.
    await (a as Store).finishAttempts(
      [
        {
          notificationId: first,
          deviceId: iphone?.id as string,
          owner: 'w',
          end: { kind: 'accepted', pushStatus: 200 },
        },
      ],
      T0 + 3,
    );
    expect((await (a as Store).getNotification(first))?.status).toBe('sent_to_push');
    const takenOver = await claim(a as Store, 'x', T0 + 2 + 30_000);
    const leasedAgain = takenOver.filter((d) => d.attempt === 2);
    expect(leasedAgain.map((d) => [d.notificationId, d.platform, d.pushId])).toEqual(
      claimed.slice(1).map((d) => [d.notificationId, d.platform, d.pushId]),
    );
  });

  it('leases in queue order whatever the tag: the oldest send is pushed first', async () => {
    const [a] = await stores(1);
    const store = a as Store;
    const { account, token, devices } = await accountWithDevices(store, ['ios', 'watchos']);
    const [phone, watch] = devices.map((device) => device.id);
    const sends = [
      newSend(account, token, T0, { tag: 'deploy' }),
      newSend(account, token, T0 + 1),
      newSend(account, token, T0 + 2, { tag: 'build' }),
      newSend(account, token, T0 + 3),
    ];
    const [tagged, untagged, laterTagged, laterUntagged] = sends.map((send) => send.id);
    for (const send of sends) await store.acceptSend(send);
    const routeLeasing = async (limit: number) => {
      const { routed, claimed } = await store.routeQueued({
        now: T0 + 3,
        limit: 200,
        decide: (input) => routeNotification(input, T0 + 3, randomUUID),
        lease: { owner: 'w', leaseMs: 60_000, limit, unreadFor: [] },
      });
      return { routed, claimed: claimed.map((d) => [d.notificationId, d.deviceId]) };
    };
    // Room for two: the older, tagged send takes both places, and the next stays queued.
    expect(await routeLeasing(2)).toEqual({
      routed: 1,
      claimed: [
        [tagged, phone],
        [tagged, watch],
      ],
    });
    expect(statesOf(await store.getNotification(untagged as string))).toEqual([]);
    expect(await routeLeasing(3)).toEqual({
      routed: 2,
      claimed: [
        [untagged, phone],
        [untagged, watch],
        [laterTagged, phone],
      ],
    });
    expect(statesOf(await store.getNotification(laterTagged as string))).toEqual(['sending', 'pending']);
    expect(await routeLeasing(3)).toEqual({
      routed: 1,
      claimed: [
        [laterUntagged, phone],
        [laterUntagged, watch],
      ],
    });
  });

  it('routes each notification once and leases each destination once when workers route and claim at once', async () => {
    const [a, b, c] = await stores(3);
    const { account, token } = await accountWithDevices(a as Store, ['ios', 'watchos', 'visionos']);
    const limits = { ...LIMITS, perTokenPerMinute: 100, perAccountPerMinute: 100 };
    for (let i = 0; i < 40; i += 1) await (a as Store).acceptSend(newSend(account, token, T0, { limits }));
    const leased: string[] = [];
    // Each worker routes into its room and claims what waits, until nothing is left.
    await Promise.all(
      [a, b, c].map(async (store, i) => {
        for (let pass = 0; pass < 20; pass += 1) {
          const due = await claim(store as Store, `w${i}`, T0, 7);
          const { claimed } = await (store as Store).routeQueued({
            now: T0,
            limit: 200,
            decide: (input) => routeNotification(input, T0, randomUUID),
            lease: { owner: `w${i}`, leaseMs: 60_000, limit: 7, unreadFor: [] },
          });
          expect(claimed.length).toBeLessThanOrEqual(7);
          leased.push(...[...due, ...claimed].map(keyOf));
        }
      }),
    );
    expect(leased).toHaveLength(120);
    expect(new Set(leased).size).toBe(120);
    expect(await route(a as Store, T0)).toBe(0);
    expect(await claim(a as Store, 'late', T0)).toEqual([]);
  });

  it('supersedes a destination it leased when a newer send of its tag is routed in the same call', async () => {
    const [a] = await stores(1);
    const store = a as Store;
    const { account, token, devices } = await accountWithDevices(store, ['ios', 'watchos']);
    const older = (await store.acceptSend(newSend(account, token, T0, { tag: 'build' }))) as { id: string };
    const newer = (await store.acceptSend(newSend(account, token, T0 + 1, { tag: 'build' }))) as {
      id: string;
    };
    const { claimed } = await store.routeQueued({
      now: T0 + 1,
      limit: 200,
      decide: (input) => routeNotification(input, T0 + 1, randomUUID),
      lease: { owner: 'w', leaseMs: 60_000, limit: 10, unreadFor: [] },
    });
    expect(claimed.map((d) => [d.notificationId, d.deviceId, d.attempt])).toEqual([
      [newer.id, devices[0]?.id, 1],
      [newer.id, devices[1]?.id, 1],
    ]);
    expect(statesOf(await store.getNotification(older.id))).toEqual(['superseded', 'superseded']);
    expect(statesOf(await store.getNotification(newer.id))).toEqual(['sending', 'sending']);
    // The superseded ones were never attempted: nothing of theirs is left for a worker.
    expect(await claim(store, 'x', T0 + 1 + 60_000)).toHaveLength(2);
  });

  it('supersedes a tagged destination that comes round again after a newer send of its tag was routed to the device', async () => {
    const [a, b] = await stores(2);
    const { account, token, devices } = await accountWithDevices(a as Store, ['ios']);
    const older = (await (a as Store).acceptSend(newSend(account, token, T0, { tag: 'build' }))) as {
      id: string;
    };
    await route(a as Store, T0);
    const [inFlight] = await claim(a as Store, 'w', T0, 10, 30_000);
    expect(inFlight?.notificationId).toBe(older.id);
    // Routed while the older one is out: that one is not waiting, so it is not superseded yet.
    const newer = (await (b as Store).acceptSend(newSend(account, token, T0 + 1, { tag: 'build' }))) as {
      id: string;
    };
    await route(b as Store, T0 + 1);
    expect(statesOf(await (a as Store).getNotification(older.id))).toEqual(['sending']);

    // Its worker died; when its lease runs out it is superseded, not pushed over the newer one.
    const claimed = await claim(b as Store, 'v', T0 + 30_000);
    expect(claimed.map((d) => [d.notificationId, d.deviceId])).toEqual([[newer.id, devices[0]?.id]]);
    expect(statesOf(await (a as Store).getNotification(older.id))).toEqual(['superseded']);

    // The same after a retry wait.
    const again = (await (a as Store).acceptSend(newSend(account, token, T0 + 2, { tag: 'deploy' }))) as {
      id: string;
    };
    await route(a as Store, T0 + 30_000);
    const [retried] = await claim(a as Store, 'v', T0 + 30_000);
    await (a as Store).acceptSend(newSend(account, token, T0 + 3, { tag: 'deploy' }));
    await route(a as Store, T0 + 30_000);
    await (a as Store).finishAttempts(
      [
        {
          notificationId: again.id,
          deviceId: retried?.deviceId as string,
          owner: 'v',
          end: { kind: 'retry', pushStatus: 503, nextAttemptAt: T0 + 32_000 },
        },
      ],
      T0 + 30_001,
    );
    expect(statesOf(await (a as Store).getNotification(again.id))).toEqual(['pending']);
    expect((await claim(a as Store, 'v', T0 + 32_000)).map((d) => d.notificationId)).not.toContain(again.id);
    expect(statesOf(await (a as Store).getNotification(again.id))).toEqual(['superseded']);
  });

  it('hands a dead worker’s lease to another after it runs out, and ignores the dead worker’s late response', async () => {
    const [a, b] = await stores(2);
    const { account, token } = await accountWithDevices(a as Store, ['ios']);
    const sent = await (a as Store).acceptSend(newSend(account, token, T0));
    await route(a as Store, T0);
    const [first] = await claim(a as Store, 'dead', T0, 10, 30_000);
    expect(first?.attempt).toBe(1);
    expect(await claim(b as Store, 'alive', T0 + 29_999, 10, 30_000)).toEqual([]);
    const [again] = await claim(b as Store, 'alive', T0 + 30_000, 10, 30_000);
    expect(again && keyOf(again)).toBe(first && keyOf(first));
    expect(again?.attempt).toBe(2);
    expect(again?.pushId).toBe(first?.pushId);

    const ids = {
      notificationId: (first as ClaimedDestination).notificationId,
      deviceId: (first as ClaimedDestination).deviceId,
    };
    await (a as Store).finishAttempts(
      [{ ...ids, owner: 'dead', end: { kind: 'accepted', pushStatus: 200 } }],
      T0 + 30_001,
    );
    const notificationId = (sent as { id: string }).id;
    expect(statesOf(await (b as Store).getNotification(notificationId))).toEqual(['sending']);
    await (b as Store).finishAttempts(
      [{ ...ids, owner: 'alive', end: { kind: 'accepted', pushStatus: 200 } }],
      T0 + 30_002,
    );
    const done = await (a as Store).getNotification(notificationId);
    expect(done?.status).toBe('sent_to_push');
    expect(done?.destinations).toEqual([
      {
        deviceId: ids.deviceId,
        deviceName: expect.stringMatching(/^ios /),
        platform: 'ios',
        state: 'accepted',
        pushStatus: 200,
        reason: null,
        updatedAt: T0 + 30_002,
      },
    ]);
  });

  it('leases a batch in one call and records its ends in one; a batch cut short by its worker’s death is taken over once, and nothing is lost', async () => {
    const [a, b] = await stores(2);
    const { account, token } = await accountWithDevices(a as Store, ['ios', 'watchos', 'visionos']);
    const sent: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      sent.push(((await (a as Store).acceptSend(newSend(account, token, T0 + i))) as { id: string }).id);
    }
    // How many times each destination was leased: a lease is a push (or a push held back).
    const leases = new Map<string, number>();
    const leased = (batch: ClaimedDestination[]) => {
      for (const d of batch) leases.set(keyOf(d), (leases.get(keyOf(d)) ?? 0) + 1);
      return batch;
    };
    const { claimed } = await (b as Store).routeQueued({
      now: T0 + 3,
      limit: 200,
      decide: (input) => routeNotification(input, T0 + 3, randomUUID),
      lease: { owner: 'w1', leaseMs: 30_000, limit: 12, unreadFor: [] },
    });
    const batch = leased(claimed);
    expect(batch.map((d) => [d.notificationId, d.attempt])).toEqual(
      sent.flatMap((notificationId) => Array(3).fill([notificationId, 1])),
    );
    const end = (d: ClaimedDestination, owner: string, attemptEnd: AttemptEnd): FinishedAttempt => ({
      notificationId: d.notificationId,
      deviceId: d.deviceId,
      owner,
      end: attemptEnd,
    });
    const accepted: AttemptEnd = { kind: 'accepted', pushStatus: 200 };
    const d = batch as [ClaimedDestination, ...ClaimedDestination[]];
    const at = (index: number) => d[index] as ClaimedDestination;

    // w1's answers of one turn, recorded in one call: every kind of end, and one for a destination
    // that is not its own (a stale owner), which changes nothing. Then w1 dies: the last five of
    // its batch (the stale owner's among them) are never recorded, their leases never renewed.
    expect(
      await (a as Store).finishAttempts(
        [
          ...[0, 1, 2, 3].map((index) => end(at(index), 'w1', accepted)),
          end(at(4), 'w1', { kind: 'retry', pushStatus: 503, nextAttemptAt: T0 + 40_000 }),
          end(at(5), 'w1', {
            kind: 'failed_permanent',
            pushStatus: 400,
            reason: 'refused',
            deactivateDevice: null,
          }),
          end(at(6), 'w1', { kind: 'released' }),
          end(at(7), 'ghost', accepted),
        ],
        T0 + 4,
      ),
    ).toEqual({
      failed: [{ notificationId: at(5).notificationId, deviceId: at(5).deviceId }],
      deactivated: [],
    });
    const states = async () =>
      Promise.all(sent.map(async (id) => statesOf(await (b as Store).getNotification(id))));
    expect(await states()).toEqual([
      ['accepted', 'accepted', 'accepted'],
      ['accepted', 'pending', 'failed_permanent'],
      ['pending', 'sending', 'sending'],
      ['sending', 'sending', 'sending'],
    ]);

    // Another worker gets what w1 handed back at once, uncounted; what w1 still holds, only once
    // its leases run out: then all of it, in one claim, each once, with its apns-id kept.
    expect(leased(await claim(b as Store, 'w2', T0 + 5)).map((d) => [keyOf(d), d.attempt, d.pushId])).toEqual(
      [[keyOf(at(6)), 1, at(6).pushId]],
    );
    expect(await claim(b as Store, 'w2', T0 + 29_999, 100, 30_000)).toEqual([]);
    const takenOver = leased(await claim(b as Store, 'w2', T0 + 30_003, 100, 30_000));
    const unrecorded = d.slice(7);
    expect(takenOver.map((d) => [keyOf(d), d.attempt, d.pushId]).sort()).toEqual(
      unrecorded.map((d) => [keyOf(d), 2, d.pushId]).sort(),
    );

    // w1's answers, late (it was stuck, not dead): the leases are w2's, so nothing changes.
    expect(
      await (a as Store).finishAttempts(
        [
          end(at(7), 'w1', {
            kind: 'failed_permanent',
            pushStatus: 400,
            reason: 'refused',
            deactivateDevice: null,
          }),
          ...unrecorded.slice(1).map((d) => end(d, 'w1', accepted)),
        ],
        T0 + 30_004,
      ),
    ).toEqual({ failed: [], deactivated: [] });
    expect((await states()).slice(2)).toEqual([
      ['sending', 'sending', 'sending'],
      ['sending', 'sending', 'sending'],
    ]);
    await (b as Store).finishAttempts(
      [at(6), ...takenOver].map((d) => end(d, 'w2', accepted)),
      T0 + 30_005,
    );
    const retried = leased(await claim(a as Store, 'w2', T0 + 40_000));
    expect(retried.map((d) => [keyOf(d), d.attempt])).toEqual([[keyOf(at(4)), 2]]);
    await (a as Store).finishAttempts([end(at(4), 'w2', accepted)], T0 + 40_001);

    // Every notification reached its end; nothing waits or is held.
    expect(await states()).toEqual([
      ['accepted', 'accepted', 'accepted'],
      ['accepted', 'accepted', 'failed_permanent'],
      ['accepted', 'accepted', 'accepted'],
      ['accepted', 'accepted', 'accepted'],
    ]);
    for (const id of sent) expect((await (a as Store).getNotification(id))?.status).toBe('sent_to_push');
    expect(await (a as Store).destinationCounts()).toEqual({ accepted: 11, failed_permanent: 1 });
    expect(await claimAndEnd(b as Store, 'w3', T0 + 120_000)).toEqual({ claimed: [], ended: [] });
    expect(await (a as Store).nextDeliveryAt()).toBeUndefined();
    // Leased twice: the retry (a second attempt), the one w1 handed back (it pushed nothing), and
    // the five w1 held unrecorded when it died, pushed once more: no more than it held.
    const twice = [...leases].filter(([, count]) => count === 2).map(([key]) => key);
    expect(twice.sort()).toEqual([at(4), at(6), ...unrecorded].map(keyOf).sort());
    expect(Math.max(...leases.values())).toBe(2);
  });

  it('renews the leases its owner still holds: a renewed one is not taken over when its first term ends', async () => {
    const [a, b] = await stores(2);
    const { account, token, devices } = await accountWithDevices(a as Store, ['ios', 'watchos']);
    const sent = newSend(account, token, T0);
    await (a as Store).acceptSend(sent);
    await route(a as Store, T0);
    const held = await claim(a as Store, 'w1', T0, 100, 6_000);
    expect(held).toHaveLength(2);
    const keys = held.map(({ notificationId, deviceId }) => ({ notificationId, deviceId }));
    // Another owner cannot renew them; the owner renews both, twice, as its pushes stay out.
    expect(await (b as Store).renewLeases({ owner: 'w2', until: T0 + 60_000, destinations: keys })).toBe(0);
    expect(await (b as Store).renewLeases({ owner: 'w1', until: T0 + 8_000, destinations: keys })).toBe(2);
    expect(await (a as Store).renewLeases({ owner: 'w1', until: T0 + 10_000, destinations: keys })).toBe(2);
    expect(await claim(b as Store, 'w2', T0 + 9_999, 100, 6_000)).toEqual([]);
    // The phone's push ends; the watch's stops being renewed, and is taken over when its term ends.
    await (a as Store).finishAttempts(
      [
        {
          notificationId: sent.id,
          deviceId: devices[0]?.id as string,
          owner: 'w1',
          end: { kind: 'accepted', pushStatus: 200 },
        },
      ],
      T0 + 9_000,
    );
    expect(await (a as Store).renewLeases({ owner: 'w1', until: T0 + 12_000, destinations: keys })).toBe(1);
    expect(await claim(b as Store, 'w2', T0 + 11_999, 100, 6_000)).toEqual([]);
    expect(
      (await claim(b as Store, 'w2', T0 + 12_000, 100, 6_000)).map((d) => [d.deviceId, d.attempt]),
    ).toEqual([[devices[1]?.id, 2]]);
  });

  it('fails a destination whose every lease ran out, and drops the notification as expired when ttl stopped the rest', async () => {
    const [a] = await stores(1);
    const store = a as Store;
    const { account, token } = await accountWithDevices(store, ['ios', 'watchos']);
    const sent = (await store.acceptSend(newSend(account, token, T0, { ttl: 600 }))) as { id: string };
    await route(store, T0);
    let now = T0;
    // The watch's destination is pushed and never responded, five times over.
    const [iphone, watch] = await claim(store, 'w', now, 2, 1000);
    await store.finishAttempts(
      [
        {
          notificationId: sent.id,
          deviceId: (iphone as ClaimedDestination).deviceId,
          owner: 'w',
          end: { kind: 'retry', pushStatus: 503, nextAttemptAt: T0 + 10_000_000 },
        },
      ],
      now,
    );
    for (let attempt = 2; attempt <= 5; attempt += 1) {
      now += 1000;
      const [again] = await claim(store, 'w', now, 1, 1000);
      expect(again && [keyOf(again), again.attempt]).toEqual([keyOf(watch as ClaimedDestination), attempt]);
    }
    now += 1000;
    expect(await claim(store, 'w', now, 1, 1000)).toEqual([]);
    expect(statesOf(await store.getNotification(sent.id))).toEqual(['pending', 'failed_permanent']);
    expect(await store.nextDeliveryAt()).toBe(T0 + 600_000);
    await claim(store, 'w', T0 + 600_000);
    const expired = await store.getNotification(sent.id);
    expect(statesOf(expired)).toEqual(['expired', 'failed_permanent']);
    expect([expired?.status, expired?.reason]).toEqual(['dropped', 'expired']);
    expect(await store.nextDeliveryAt()).toBeUndefined();
  });

  it('supersedes a waiting tagged destination with a newer send routed by another process, and never the other way', async () => {
    const [a, b] = await stores(2);
    const { account, token, devices } = await accountWithDevices(a as Store, ['ios']);
    const older = (await (a as Store).acceptSend(newSend(account, token, T0, { tag: 'build' }))) as {
      id: string;
    };
    const newer = (await (b as Store).acceptSend(newSend(account, token, T0 + 1, { tag: 'build' }))) as {
      id: string;
    };
    // Routed in both orders at once by two workers: whichever goes first, the newer one wins.
    await Promise.all([route(a as Store, T0 + 2), route(b as Store, T0 + 2)]);
    expect(statesOf(await (a as Store).getNotification(older.id))).toEqual(['superseded']);
    expect(statesOf(await (a as Store).getNotification(newer.id))).toEqual(['pending']);
    const claimed = await claim(b as Store, 'w', T0 + 2);
    expect(claimed.map((d) => [d.notificationId, d.deviceId])).toEqual([[newer.id, devices[0]?.id]]);
  });

  it('drops what a revoked token queued but not yet routed, and stops nothing already routed', async () => {
    const [a, b] = await stores(2);
    const { account, token } = await accountWithDevices(a as Store, ['ios']);
    const routed = (await (a as Store).acceptSend(newSend(account, token, T0))) as { id: string };
    await route(b as Store, T0);
    const queued = (await (a as Store).acceptSend(newSend(account, token, T0 + 1))) as { id: string };
    expect(await (b as Store).revokeToken(account.id, token.id, T0 + 2)).toBe(true);
    expect(await (b as Store).revokeToken(account.id, token.id, T0 + 3)).toBe(true);
    expect(await (b as Store).revokeToken(account.id, 'tok_none', T0 + 3)).toBe(false);
    expect(await route(b as Store, T0 + 4)).toBe(0);
    const dropped = await (a as Store).getNotification(queued.id);
    expect([dropped?.status, dropped?.reason, dropped?.destinations]).toEqual([
      'dropped',
      'token_revoked',
      [],
    ]);
    expect(statesOf(await (a as Store).getNotification(routed.id))).toEqual(['pending']);
  });

  it('skips what waits for a device APNs called unregistered, takes the device out of lists, and says so', async () => {
    const [a, b] = await stores(2);
    const { account, token, devices } = await accountWithDevices(a as Store, ['ios']);
    const first = (await (a as Store).acceptSend(newSend(account, token, T0))) as { id: string };
    const second = (await (a as Store).acceptSend(newSend(account, token, T0 + 1))) as { id: string };
    await route(a as Store, T0 + 1);
    const [pushed] = await claim(b as Store, 'w', T0 + 1, 1);
    expect(pushed?.notificationId).toBe(first.id);
    const gone: FinishedAttempt = {
      notificationId: first.id,
      deviceId: pushed?.deviceId as string,
      owner: 'w',
      end: { kind: 'failed_permanent', pushStatus: 410, reason: 'gone', deactivateDevice: 'unregistered' },
    };
    // What the worker tells the operator of: this destination failed, and this device made inactive.
    expect(await (b as Store).finishAttempts([gone], T0 + 5)).toEqual({
      failed: [{ notificationId: first.id, deviceId: devices[0]?.id }],
      deactivated: [devices[0]?.id],
    });
    const record = await (a as Store).getNotification(first.id);
    expect(record?.destinations.map((d) => [d.state, d.pushStatus, d.reason])).toEqual([
      ['failed_permanent', 410, 'gone'],
    ]);
    expect(statesOf(await (a as Store).getNotification(second.id))).toEqual(['skipped']);
    expect(await (a as Store).listDevices(account.id, { activeOnly: true })).toEqual([]);
    expect(
      (await (a as Store).listDevices(account.id, { activeOnly: false })).map((d) => [
        d.id,
        d.active,
        d.inactiveReason,
      ]),
    ).toEqual([[devices[0]?.id, false, 'unregistered']]);
    // The same end recorded again (its lease no longer held) ends nothing and deactivates nothing.
    expect(await (a as Store).finishAttempts([gone], T0 + 6)).toEqual({ failed: [], deactivated: [] });
  });

  it('ends what it must while claiming, and says which: attempts exhausted when the last lease ran out, expired at the deadline', async () => {
    const [a, b] = await stores(2);
    const { account, token, devices } = await accountWithDevices(a as Store, ['ios', 'watchos']);
    const [phone, watch] = devices.map((device) => device.id);
    const send = (await (a as Store).acceptSend(newSend(account, token, T0, { ttl: 60 }))) as { id: string };
    await route(a as Store, T0);
    const retry = (deviceId: string, at: number, nextAttemptAt: number) =>
      (b as Store).finishAttempts(
        [
          {
            notificationId: send.id,
            deviceId,
            owner: 'w',
            end: { kind: 'retry', pushStatus: 503, nextAttemptAt },
          },
        ],
        at,
      );
    // The watch's next attempt would come after the deadline: it waits for it.
    expect((await claim(b as Store, 'w', T0, 2)).map((d) => d.deviceId)).toEqual([phone, watch]);
    await retry(watch as string, T0, T0 + 120_000);
    await retry(phone as string, T0, T0 + 1);
    for (let attempt = 2; attempt <= 4; attempt += 1) {
      expect((await claim(b as Store, 'w', T0 + attempt, 1)).map((d) => [d.deviceId, d.attempt])).toEqual([
        [phone, attempt],
      ]);
      await retry(phone as string, T0 + attempt, T0 + attempt);
    }
    // The fifth attempt's worker dies: its lease runs out.
    expect((await claim(b as Store, 'w', T0 + 10, 1, 1_000)).map((d) => d.attempt)).toEqual([5]);
    const { claimed, ended } = await claimAndEnd(a as Store, 'w2', T0 + 60_000);
    expect(claimed).toEqual([]);
    expect(ended).toEqual([
      {
        notificationId: send.id,
        deviceId: phone,
        provider: 'apns',
        state: 'failed_permanent',
        reason: 'attempts_exhausted',
        pushStatus: 503,
      },
      {
        notificationId: send.id,
        deviceId: watch,
        provider: 'apns',
        state: 'expired',
        reason: 'expired',
        pushStatus: 503,
      },
    ]);
    const record = await (b as Store).getNotification(send.id);
    expect([record?.status, record?.reason]).toEqual(['dropped', 'expired']);
    expect(record?.destinations.map((d) => [d.deviceId, d.state, d.reason])).toEqual([
      [phone, 'failed_permanent', 'attempts_exhausted'],
      [watch, 'expired', 'expired'],
    ]);
    // Ended once: the next claim ends nothing more.
    expect((await claimAndEnd(b as Store, 'w2', T0 + 61_000)).ended).toEqual([]);
  });

  it('purges by age, and keeps the rest', async () => {
    const [a] = await stores(1);
    const store = a as Store;
    const { account, token } = await accountWithDevices(store, ['ios']);
    const old = (await store.acceptSend(newSend(account, token, T0, { key: 'k1' }))) as { id: string };
    const recent = (await store.acceptSend(newSend(account, token, T0 + 120_000, { key: 'k2' }))) as {
      id: string;
    };
    expect(
      await store.purge(
        {
          notificationsBefore: T0 + 1,
          keysBefore: T0 + 1,
          windowsBefore: T0 + 60_000,
          credentialsBefore: T0 + 1,
          wrongCodesBefore: 0,
        },
        PURGE_BATCH,
      ),
    ).toEqual({
      notifications: 1,
      keys: 1,
      windows: 2,
      tokens: 0,
      devices: 0,
      accountKeys: 0,
      linkRequests: 0,
      wrongCodes: 0,
    });
    expect(await store.getNotification(old.id)).toBeUndefined();
    expect((await store.getNotification(recent.id))?.status).toBe('accepted');
    // The key went with its notification: the same key is a new send now.
    expect((await store.acceptSend(newSend(account, token, T0 + 130_000, { key: 'k1' }))).kind).toBe(
      'accepted',
    );
  });

  it('purges tokens revoked or expired, and devices removed, before the cutoff; lists show the newest retired only', async () => {
    const [a] = await stores(1);
    const store = a as Store;
    const { account, token } = await accountWithDevices(store, ['ios', 'watchos']);
    const makeToken = (name: string, expiresAt: number | null) =>
      addToken(store, account.id, { name, id: `tok_${name}`, secretHash: `hash_${name}`, expiresAt });
    await makeToken('expired-long-ago', T0 + 10);
    await makeToken('expires-later', T0 + 10_000);
    await makeToken('revoked-long-ago', null);
    await makeToken('revoked-lately', null);
    await store.revokeToken(account.id, 'tok_revoked-long-ago', T0 + 10);
    await store.revokeToken(account.id, 'tok_revoked-lately', T0 + 5_000);
    const devices = await store.listDevices(account.id, { activeOnly: true });
    await store.removeDevice(account.id, devices[0]?.id as string, T0 + 10);
    await store.removeDevice(account.id, devices[1]?.id as string, T0 + 5_000);
    // Three rotations: the first two keys replaced long ago, the third lately.
    for (const [n, now] of [
      [1, T0 + 10],
      [2, T0 + 20],
      [3, T0 + 5_000],
    ] as const) {
      await store.rotateAccountKey(account.id, {
        keyHash: `hash_key-${n}`,
        expectedGeneration: undefined,
        now,
      });
    }

    const purged = await store.purge(
      {
        notificationsBefore: 0,
        keysBefore: 0,
        windowsBefore: 0,
        credentialsBefore: T0 + 1_000,
        wrongCodesBefore: 0,
      },
      PURGE_BATCH,
    );
    expect([purged.tokens, purged.devices, purged.accountKeys]).toEqual([2, 1, 2]);
    // A key replaced before the cutoff is forgotten; one replaced since still says key_rotated.
    expect(await store.findCredential('hash_key-1')).toBeUndefined();
    expect((await store.findCredential('hash_key-2'))?.kind).toBe('retired_account_key');
    expect((await store.listTokens(account.id, T0 + 2_000)).map((t) => t.name).sort()).toEqual(
      [token.name, 'expires-later', 'revoked-lately'].sort(),
    );
    expect(await store.findCredential('hash_revoked-long-ago')).toBeUndefined();
    expect((await store.findCredential('hash_revoked-lately'))?.kind).toBe('send');
    expect((await store.listDevices(account.id, { activeOnly: false })).map((d) => d.id)).toEqual([
      devices[1]?.id,
    ]);

    // However many were retired, a list shows the live ones and the newest RETIRED_LISTED others.
    for (let i = 0; i < RETIRED_LISTED + 5; i += 1) {
      await makeToken(`retired-${i}`, null);
      await store.revokeToken(account.id, `tok_retired-${i}`, T0 + 6_000 + i);
    }
    const listed = await store.listTokens(account.id, T0 + 2_000);
    const live = listed.filter((t) => t.revokedAt === null);
    expect(live.map((t) => t.name).sort()).toEqual([token.name, 'expires-later'].sort());
    expect(listed.length - live.length).toBe(RETIRED_LISTED);
    expect(listed.map((t) => t.name)).not.toContain('retired-0');
  });

  it('keeps the count of destinations in each state exact through every change, as metrics read it', async () => {
    const [a, b] = await stores(2);
    const { account, token, devices } = await accountWithDevices(a as Store, ['ios', 'watchos', 'visionos']);
    const sent: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const outcome = await (a as Store).acceptSend(
        newSend(account, token, T0 + i, { ...(i === 3 ? { tag: 'build' } : {}), ttl: 60 }),
      );
      if (outcome.kind === 'accepted') sent.push(outcome.id);
    }
    /** The states of every destination, read record by record: the truth the counts must match. */
    const tally = async () => {
      const counts: Record<string, number> = {};
      for (const id of sent) {
        for (const state of statesOf(await (a as Store).getNotification(id)) ?? []) {
          counts[state] = (counts[state] ?? 0) + 1;
        }
      }
      return counts;
    };
    const expectCounts = async (expected: Record<string, number>) => {
      expect(await tally()).toEqual(expected);
      // Every process reads the same figures, whichever connection made the change.
      expect(await (a as Store).destinationCounts()).toEqual(expected);
      expect(await (b as Store).destinationCounts()).toEqual(expected);
    };

    await expectCounts({});
    await route(a as Store, T0 + 10);
    await expectCounts({ pending: 12 });
    const claimedA = await claim(a as Store, 'wa', T0 + 20, 4);
    const claimedB = await claim(b as Store, 'wb', T0 + 20, 3);
    await expectCounts({ pending: 5, sending: 7 });
    const end = (d: ClaimedDestination, owner: string, endOf: AttemptEnd) => ({
      notificationId: d.notificationId,
      deviceId: d.deviceId,
      owner,
      end: endOf,
    });
    await (a as Store).finishAttempts(
      [
        end(claimedA[0] as ClaimedDestination, 'wa', { kind: 'accepted', pushStatus: 200 }),
        end(claimedA[1] as ClaimedDestination, 'wa', { kind: 'accepted', pushStatus: 200 }),
        end(claimedA[2] as ClaimedDestination, 'wa', {
          kind: 'failed_permanent',
          pushStatus: 400,
          reason: 'refused',
          deactivateDevice: null,
        }),
        end(claimedA[3] as ClaimedDestination, 'wa', { kind: 'released' }),
      ],
      T0 + 30,
    );
    await (b as Store).finishAttempts(
      [
        end(claimedB[0] as ClaimedDestination, 'wb', {
          kind: 'retry',
          pushStatus: 503,
          nextAttemptAt: T0 + 2_000,
        }),
        end(claimedB[1] as ClaimedDestination, 'wb', { kind: 'accepted', pushStatus: 200 }),
      ],
      T0 + 30,
    );
    // A lease renewal changes no state.
    await (b as Store).renewLeases({
      owner: 'wb',
      until: T0 + 90_000,
      destinations: [claimedB[2] as ClaimedDestination],
    });
    await expectCounts({ pending: 7, sending: 1, accepted: 3, failed_permanent: 1 });
    // A tagged send supersedes the tag's waiting destination on each device.
    const tagged = await (a as Store).acceptSend(newSend(account, token, T0 + 40, { tag: 'build', ttl: 60 }));
    if (tagged.kind === 'accepted') sent.push(tagged.id);
    await route(b as Store, T0 + 50);
    const afterTag = await tally();
    expect(afterTag.superseded ?? 0).toBeGreaterThan(0);
    await expectCounts(afterTag);
    // A device leaving skips what waits for it; the deadline expires the rest.
    await (b as Store).removeDevice(account.id, devices[2]?.id as string, T0 + 60);
    const afterRemoval = await tally();
    expect(afterRemoval.skipped ?? 0).toBeGreaterThan(0);
    await expectCounts(afterRemoval);
    await claim(a as Store, 'wa', T0 + 200_000, 100);
    const afterExpiry = await tally();
    expect(afterExpiry.expired ?? 0).toBeGreaterThan(0);
    await expectCounts(afterExpiry);
    // Retention takes them all away, and the counts with them.
    await (b as Store).purge(
      {
        notificationsBefore: T0 + 1_000,
        keysBefore: 0,
        windowsBefore: 0,
        credentialsBefore: 0,
        wrongCodesBefore: 0,
      },
      PURGE_BATCH,
    );
    expect(await (a as Store).destinationCounts()).toEqual({});
  });
});
