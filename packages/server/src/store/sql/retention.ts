import type { Cutoffs, Purged } from '../store.js';
import { changes, type Dialect, type Plan } from './plan.js';

/**
 * Each kind's rows past retention, at most `batch` of them, in one transaction: a day's worth at
 * once would hold SQLite's only writer (and its process's event loop), or PostgreSQL's locks and
 * its whole WAL, in one piece. Notifications and idempotency keys go oldest first, by their time
 * indexes; the rest, small tables with no such index, in any order. A notification's destinations
 * and events go with it: by SQLite's cascade, or by PostgreSQL's own `notifications` step
 * (postgres/retention.ts), which deletes the same oldest `batch`.
 */
export function* purgeRows(
  d: Dialect,
  cutoffs: Cutoffs,
  batch: number,
  notifications?: Plan<number>,
): Plan<Purged> {
  const some = (table: string, where: string, order: string, value: number) =>
    changes(
      `DELETE FROM ${table} WHERE ${d.rowAddress} ${d.amongRows(
        `SELECT ${d.rowAddress} FROM ${table} WHERE ${where} ${order} LIMIT $2`,
      )}`,
      value,
      batch,
    );
  const before = cutoffs.credentialsBefore;
  return {
    notifications: yield* notifications ??
      some('notifications', 'created_at < $1', 'ORDER BY created_at', cutoffs.notificationsBefore),
    tokens: yield* some('tokens', 'revoked_at < $1 OR expires_at < $1', '', before),
    devices: yield* some('devices', `active = ${d.false} AND removed_at < $1`, '', before),
    accountKeys: yield* some('retired_account_keys', 'retired_at < $1', '', before),
    linkRequests: yield* some('link_requests', 'expires_at < $1', '', before),
    wrongCodes: yield* some('link_wrong_codes', 'at < $1', '', cutoffs.wrongCodesBefore),
    keys: yield* some('idempotency_keys', 'created_at < $1', 'ORDER BY created_at', cutoffs.keysBefore),
    windows: yield* some('send_windows', 'second < $1', '', Math.floor(cutoffs.windowsBefore / 1000)),
  };
}
