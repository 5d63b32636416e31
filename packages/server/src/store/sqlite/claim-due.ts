import type { ClaimedDestination } from '../../model/leases.js';
import { REPLACED_BY_NEWER, unreadColumn } from '../queries.js';
import { claimedFrom, type Row } from '../rows.js';
import { all, type DueClaim, type Plan } from '../sql/plan.js';

const CANDIDATES = `SELECT d.rowid AS rid, d.notification_id, d.device_id, d.platform, d.attempts, d.push_id,
    d.created_at, d.expires_at, v.provider, v.push_address, v.push_data,
    COALESCE(v.push_since, v.created_at) AS device_created_at,
    ${REPLACED_BY_NEWER} AS replaced, ${unreadColumn('d', 'IN (SELECT value FROM json_each($1))')}
  FROM destinations d
  JOIN devices v ON v.id = d.device_id
  WHERE d.state = 'pending' AND d.next_attempt_at <= $2
  ORDER BY d.next_attempt_at, d.rowid LIMIT $3`;

/**
 * Leases the due destinations to `owner` (see Dialect.claim). SQLite's `WITH` cannot change rows,
 * so it reads them, then supersedes the replaced and leases the rest by rowid.
 */
export function* claimDue({ owner, now, leaseMs, limit, unreadFor }: DueClaim): Plan<ClaimedDestination[]> {
  const candidates = yield* all(CANDIDATES, JSON.stringify(unreadFor), now, limit);
  const replaced = candidates.filter((row) => row.replaced === 1);
  if (replaced.length > 0) {
    yield* all(
      `UPDATE destinations SET state = 'superseded', updated_at = $1 WHERE rowid IN (SELECT value FROM json_each($2))`,
      now,
      JSON.stringify(replaced.map((row) => row.rid)),
    );
  }
  const due = replaced.length === 0 ? candidates : candidates.filter((row) => row.replaced !== 1);
  if (due.length === 0) return [];
  // Each notification's payload once, not once per device it goes to.
  const notifications = new Map<string, Row>();
  for (const row of yield* all(
    'SELECT id, payload, sender_name FROM notifications WHERE id IN (SELECT value FROM json_each($1))',
    JSON.stringify([...new Set(due.map((row) => row.notification_id as string))]),
  )) {
    notifications.set(row.id as string, row);
  }
  for (const row of due) {
    const notification = notifications.get(row.notification_id as string) as Row;
    row.payload = notification.payload;
    row.sender_name = notification.sender_name;
  }
  yield* all(
    `UPDATE destinations SET state = 'sending', attempts = attempts + 1, lease_owner = $1, lease_until = $2,
       updated_at = $3 WHERE rowid IN (SELECT value FROM json_each($4))`,
    owner,
    now + leaseMs,
    now,
    JSON.stringify(due.map((row) => row.rid)),
  );
  return claimedFrom(due, (row) => Number(row.attempts) + 1);
}
