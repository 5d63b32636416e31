import { all, changes, type Dialect, type Plan } from '../sql/plan.js';
import { purgeRows } from '../sql/retention.js';
import type { RetentionPart } from '../store.js';
import type { Session } from './connection.js';

/**
 * Rows past retention in batches, as both databases delete them (sql/retention.ts), but for the
 * notifications' destinations.
 */
export function postgresPurge(d: Dialect): RetentionPart {
  return {
    purge: (cutoffs, batch) =>
      d.write(
        function* () {
          return yield* purgeRows(d, cutoffs, batch, oldestNotifications(cutoffs.notificationsBefore, batch));
        },
        [COUNTER_FOLD_LOCK],
      ),
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
