import type { DestinationState } from '@foxbell/sdk/contract';
import { maybeNumber } from '../rows.js';
import type { HealthPart } from '../store.js';
import type { SqliteConnection } from './connection.js';
import { SQLITE_MIGRATIONS } from './schema.js';

export function sqliteHealth(db: SqliteConnection): HealthPart {
  return {
    async schemaCurrent() {
      return Number(db.get('PRAGMA user_version')?.user_version) === SQLITE_MIGRATIONS.length;
    },
    async queueStats() {
      const row = db.get(
        `SELECT count(*) AS depth, min(created_at) AS oldest
         FROM notifications INDEXED BY notifications_queued WHERE routed_at IS NULL`,
      );
      return { depth: Number(row?.depth ?? 0), oldestCreatedAt: maybeNumber(row?.oldest) ?? undefined };
    },
    async destinationCounts() {
      return Object.fromEntries(
        db
          .all(
            // The final states from their counts; pending and sending through their partial
            // indexes (destinations_pending_due, destinations_leased): what waits or is in flight.
            `SELECT state, n FROM destination_state_counts
             UNION ALL SELECT 'pending', count(*) FROM destinations WHERE state = 'pending'
             UNION ALL SELECT 'sending', count(*) FROM destinations WHERE state = 'sending'`,
          )
          .filter((row) => Number(row.n) !== 0)
          .map((row) => [row.state as DestinationState, Number(row.n)]),
      );
    },
  };
}
