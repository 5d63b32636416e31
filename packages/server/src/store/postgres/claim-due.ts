import type { ClaimedDestination } from '../../model/leases.js';
import { REPLACED_BY_NEWER, unreadColumn } from '../queries.js';
import { claimedFrom } from '../rows.js';
import { all, type DueClaim, type Plan } from '../sql/plan.js';

const CLAIM = `WITH due AS (
    SELECT d.notification_id, d.device_id, ${REPLACED_BY_NEWER} AS replaced FROM destinations d
    WHERE d.state = 'pending' AND d.next_attempt_at <= $1
    ORDER BY d.next_attempt_at, d.seq LIMIT $2 FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE destinations d
    SET state = CASE WHEN due.replaced THEN 'superseded' ELSE 'sending' END,
      attempts = CASE WHEN due.replaced THEN d.attempts ELSE d.attempts + 1 END,
      lease_owner = CASE WHEN due.replaced THEN NULL ELSE $3 END,
      lease_until = CASE WHEN due.replaced THEN NULL ELSE $4::bigint END, updated_at = $1
    FROM due WHERE d.notification_id = due.notification_id AND d.device_id = due.device_id
    RETURNING d.notification_id, d.device_id, d.platform, d.attempts, d.push_id, d.created_at,
      d.expires_at, d.seq, d.state
  )
  SELECT c.*, v.provider, v.push_address, v.push_data, COALESCE(v.push_since, v.created_at) AS device_created_at,
    n.payload, n.sender_name, ${unreadColumn('c', '= ANY($5)')}
  FROM claimed c
  JOIN devices v ON v.id = c.device_id
  JOIN notifications n ON n.id = c.notification_id
  WHERE c.state = 'sending'
  ORDER BY c.seq`;

/**
 * Leases the due destinations to `owner` (see Dialect.claim) in one statement: the due rows another
 * worker holds are skipped, not waited for, and those a newer send of their tag replaced are
 * superseded instead.
 */
export function* claimDue({ owner, now, leaseMs, limit, unreadFor }: DueClaim): Plan<ClaimedDestination[]> {
  const rows = yield* all(CLAIM, now, limit, owner, now + leaseMs, unreadFor);
  return claimedFrom(rows, (row) => Number(row.attempts));
}
