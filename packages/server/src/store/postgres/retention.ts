import { all, changes, type Dialect, type Plan } from '../sql/plan.js';
import { purgeRows } from '../sql/retention.js';
import type { Purged, RetentionPart } from '../store.js';
import type { PostgresConnection, Session } from './connection.js';

/**
 * Rows past retention in batches, as both databases delete them (sql/retention.ts), but for the
 * notifications' destinations.
 */
export function postgresPurge(db: PostgresConnection, d: Dialect): RetentionPart {
  return {
    purge: (cutoffs, batch) =>
      d.write(
        () => purgeRows(d, cutoffs, batch, oldestNotifications(cutoffs.notificationsBefore, batch)),
        [COUNTER_FOLD_LOCK],
      ),
    async reclaim(purged) {
      const tables = Object.entries(RECLAIMED)
        .filter(([kind]) => purged[kind as keyof typeof purged] > 0)
        .flatMap(([, names]) => names);
      if (tables.length === 0) return;
      await db.outside(async (session) => {
        // Paced as autovacuum paces itself (its default cost delay), so that it takes the disk
        // from sends no more than autovacuum would. Never FULL (it locks the table for its whole
        // run); no truncation (it takes a lock that writes queue behind, and the room is reused anyway).
        // Rows deleted after the oldest transaction still running began are left to the next sweep's.
        await session.simple(`SET vacuum_cost_delay = '2ms'`);
        await session.simple(`VACUUM (ANALYZE, TRUNCATE false) ${tables.join(', ')}`);
        await session.simple('RESET vacuum_cost_delay');
      });
    },
  };
}

/**
 * The oldest `batch` notifications past retention, with their destinations in one statement, not
 * by the cascade: PostgreSQL's cascade deletes one parent's rows at a time, and each would run the
 * state counters' trigger. The ids are read once, so both deletes take the same notifications.
 */
function* oldestNotifications(before: number, batch: number): Plan<number> {
  const ids = (yield* all(
    'SELECT id FROM notifications WHERE created_at < $1 ORDER BY created_at LIMIT $2',
    before,
    batch,
  )).map((row) => row.id as string);
  yield* changes('DELETE FROM destinations WHERE notification_id = ANY($1)', ids);
  yield { native: foldGoneCounterSlots };
  return yield* changes('DELETE FROM notifications WHERE id = ANY($1)', ids);
}

/**
 * The tables each kind of purged row leaves dead row versions in: a notification's go with its
 * destinations, queue entry and events, and the purge folds the state counters' rows.
 */
const RECLAIMED = {
  notifications: [
    'notifications',
    'destinations',
    'route_queue',
    'handled_events',
    'destination_state_counts',
  ],
  tokens: ['tokens'],
  devices: ['devices'],
  accountKeys: ['retired_account_keys'],
  linkRequests: ['link_requests'],
  wrongCodes: ['link_wrong_codes'],
  keys: ['idempotency_keys'],
  windows: ['send_windows'],
} satisfies Record<keyof Purged, string[]>;

const COUNTER_FOLD_LOCK = 'foxbell:destination_state_counts';

/**
 * Folds the state-counter slots of database connections that have closed into slot 0, so the
 * counters stay a few rows however many connections have come and gone. Moving a slot that is
 * still in use is harmless (the sum is the same; its owner makes a new row), and the purges of
 * several processes take turns under an advisory lock (COUNTER_FOLD_LOCK).
 */
async function foldGoneCounterSlots(session: Session): Promise<void> {
  await session.rows(
    `WITH gone AS (
       DELETE FROM destination_state_counts
       WHERE slot <> 0 AND slot NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL)
       RETURNING state, n
     )
     INSERT INTO destination_state_counts (slot, state, n)
       SELECT 0, state, sum(n) FROM gone GROUP BY state ORDER BY state
     ON CONFLICT (slot, state) DO UPDATE SET n = destination_state_counts.n + excluded.n`,
  );
}
