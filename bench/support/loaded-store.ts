// What the delivery benches start from: a SQLite store holding accepted sends, not yet routed, to
// one account's devices. Each bench says how its devices are reached (APNs tokens, Web Push
// subscriptions); the rest is the same.
import { randomUUID } from 'node:crypto';
import { type ClaimedDestination, openSqliteStore, randomIds, type Store } from '@foxbell/server';

/** One send as the store keeps it: validated, every default applied. */
export const NOTIFICATION: ClaimedDestination['notification'] = {
  message: 'Build #812 passed on main',
  title: 'CI',
  scene: 'rocket',
  scene_version: 1,
  scene_params: {},
  bell_color: 'gold',
  level: 'active',
  sound: 'default',
  ttl: 86_400,
  target: 'auto',
};

/** A device of the bench's account: where its pushes go. */
export type BenchDevice = Pick<ClaimedDestination, 'address'>;

/**
 * A store in `dir` with `count` accepted sends of NOTIFICATION to an account with these devices,
 * and `allRecorded`, resolved once an attempt to each of their destinations is recorded.
 */
export async function loadedStore(
  dir: string,
  devices: BenchDevice[],
  count: number,
): Promise<{ store: Store; allRecorded: Promise<void> }> {
  const store = openSqliteStore({ dataDir: dir });
  const now = Date.now();
  const account = await store.createAccount({
    id: randomIds.id('acct'),
    name: null,
    keyHash: randomUUID(),
    now,
  });
  const token = await store.createToken(
    {
      id: randomIds.id('tok'),
      accountId: account.id,
      name: 'Bench',
      kind: 'standard',
      ownStatus: true,
      deviceNames: true,
      scenes: null,
      allowUrls: true,
      defaultTarget: null,
      expiresAt: null,
      createdAt: now,
    },
    randomUUID(),
    50,
  );
  if (token === 'limit_reached') throw new Error('token limit');
  for (const [i, device] of devices.entries()) {
    await store.createDevice(
      {
        id: randomIds.id('dev'),
        accountId: account.id,
        name: `Phone ${i}`,
        platform: 'ios',
        ...device,
        inAuto: true,
        now,
      },
      devices.length,
    );
  }
  const limits = { perTokenPerMinute: 1e9, perAccountPerMinute: 1e9, perAccountPerMonth: 1e12 };
  const outcomes = await Promise.all(
    Array.from({ length: count }, () =>
      store.acceptSend({
        id: randomIds.id('ntf'),
        requestId: randomIds.id('req'),
        account,
        token,
        notification: NOTIFICATION,
        idempotency: undefined,
        now,
        limits,
      }),
    ),
  );
  const refused = outcomes.filter((outcome) => outcome.kind !== 'accepted');
  if (refused.length > 0) throw new Error(`${refused.length} sends rejected: ${JSON.stringify(refused[0])}`);
  return countingRecorded(store, count * devices.length);
}

/**
 * `store`, telling when `count` attempts are recorded (written to disk, as the worker records
 * them): the bench's clock stops on that event, not on a polling step that would round its figure.
 */
function countingRecorded(store: Store, count: number): { store: Store; allRecorded: Promise<void> } {
  let finished = 0;
  let resolve = () => {};
  const allRecorded = new Promise<void>((done) => {
    resolve = done;
  });
  const finishAttempts: Store['finishAttempts'] = async (attempts, now) => {
    const recorded = await store.finishAttempts(attempts, now);
    finished += attempts.length;
    if (finished >= count) resolve();
    return recorded;
  };
  return {
    store: new Proxy(store, {
      get: (target, property) => {
        if (property === 'finishAttempts') return finishAttempts;
        const value = Reflect.get(target, property);
        // Called on the store itself: its methods read fields a proxy does not have.
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
    allRecorded,
  };
}
