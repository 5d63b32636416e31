import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { DestinationState } from '@foxbell/sdk/contract';
import { maybeNumber } from '../rows.js';
import type { HealthPart } from '../store.js';
import type { SqliteConnection } from './connection.js';
import { SQLITE_MIGRATIONS } from './schema.js';

/**
 * Health as SQLite reads it. Apart from PostgreSQL's, since each answer lives somewhere else there:
 * the schema's version is `user_version`; the database is writable when its file and folder are;
 * the queue is a partial index of `notifications`; one row per final state is counted, pending and
 * sending read on their partial indexes.
 */
export function sqliteHealth(db: SqliteConnection): HealthPart {
  return {
    async schemaCurrent() {
      return Number(db.get('PRAGMA user_version')?.user_version) === SQLITE_MIGRATIONS.length;
    },
    async canWrite() {
      const file = db.all('PRAGMA database_list').find((row) => row.name === 'main')?.file;
      if (typeof file !== 'string' || file === '') return true;
      // The journal and WAL files are made beside the database: its folder must take writes too.
      try {
        await access(file, constants.W_OK);
        await access(path.dirname(file), constants.W_OK);
        return true;
      } catch {
        return false;
      }
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
