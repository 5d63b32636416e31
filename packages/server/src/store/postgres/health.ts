import type { DestinationState } from '@foxbell/sdk/contract';
import { maybeNumber } from '../rows.js';
import type { HealthPart } from '../store.js';
import type { PostgresConnection } from './connection.js';
import { POSTGRES_MIGRATIONS } from './schema.js';

/**
 * Health as PostgreSQL reads it. Apart from SQLite's, since each answer lives somewhere else here:
 * the schema's version is `foxbell_migrations`; a standby or read-only transactions cannot write;
 * the queue is `route_queue`; every state is counted, in a row per connection and state that the
 * sum adds up (see postgres/schema.ts).
 */
export function postgresHealth(db: PostgresConnection): HealthPart {
  return {
    async schemaCurrent() {
      const [row] = await db.read('SELECT coalesce(max(version), 0) AS applied FROM foxbell_migrations');
      return Number(row?.applied) === POSTGRES_MIGRATIONS.length;
    },
    async canWrite() {
      const [row] = await db.read(
        `SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable`,
      );
      return row?.writable === true;
    },
    async queueStats() {
      const [row] = await db.read('SELECT count(*) AS depth, min(available_at) AS oldest FROM route_queue');
      return { depth: Number(row?.depth ?? 0), oldestCreatedAt: maybeNumber(row?.oldest) ?? undefined };
    },
    async destinationCounts() {
      return Object.fromEntries(
        (
          await db.read(
            'SELECT state, sum(n) AS n FROM destination_state_counts GROUP BY state HAVING sum(n) <> 0',
          )
        ).map((row) => [row.state as DestinationState, Number(row.n)]),
      );
    },
  };
}
