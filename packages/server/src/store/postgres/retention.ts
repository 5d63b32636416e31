import type { RetentionPart } from '../store.js';
import type { PostgresConnection, Session } from './connection.js';

export function postgresPurge(db: PostgresConnection): RetentionPart {
  return {
    purge: (cutoffs) =>
      db.transaction(
        async (session) => {
          // In one statement, not by the cascade: PostgreSQL's cascade deletes one parent's rows at
          // a time, and each would run the state counters' trigger.
          await session.count(
            'DELETE FROM destinations WHERE notification_id IN (SELECT id FROM notifications WHERE created_at < $1)',
            [cutoffs.notificationsBefore],
          );
          await foldGoneCounterSlots(session);
          return {
            notifications: await session.count('DELETE FROM notifications WHERE created_at < $1', [
              cutoffs.notificationsBefore,
            ]),
            tokens: await session.count('DELETE FROM tokens WHERE revoked_at < $1 OR expires_at < $1', [
              cutoffs.credentialsBefore,
            ]),
            devices: await session.count('DELETE FROM devices WHERE NOT active AND removed_at < $1', [
              cutoffs.credentialsBefore,
            ]),
            accountKeys: await session.count('DELETE FROM retired_account_keys WHERE retired_at < $1', [
              cutoffs.credentialsBefore,
            ]),
            linkRequests: await session.count('DELETE FROM link_requests WHERE expires_at < $1', [
              cutoffs.credentialsBefore,
            ]),
            wrongCodes: await session.count('DELETE FROM link_wrong_codes WHERE at < $1', [
              cutoffs.wrongCodesBefore,
            ]),
            keys: await session.count('DELETE FROM idempotency_keys WHERE created_at < $1', [
              cutoffs.keysBefore,
            ]),
            windows: await session.count('DELETE FROM send_windows WHERE second < $1', [
              Math.floor(cutoffs.windowsBefore / 1000),
            ]),
          };
        },
        [COUNTER_FOLD_LOCK],
      ),
  };
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
