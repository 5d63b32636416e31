// SQL that reads the same in SQLite and PostgreSQL, shared by both stores.
import { PROVIDER_SQL } from './sql/migrations.js';

/**
 * A token row that still works at the time `now` (a placeholder: `?` or `$2`): not revoked, and
 * not past its expiry, which ends it from that instant on (as auth reads it). What counts toward
 * an account's token limit, and what a list shows apart from the retired ones.
 */
export const liveToken = (now: string) =>
  `(revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}))`;

/** The columns of the account `a` as `a_<column>`, beside another table's (see accountFromRow). */
export const ACCOUNT_COLUMNS = `a.id AS a_id, a.name AS a_name, a.key_generation AS a_key_generation,
  a.created_at AS a_created_at, a.deleted_at AS a_deleted_at, a.merged_into AS a_merged_into`;

/**
 * An account's (`$1`) rows of `table`, in the order they were made (`made`: see Dialect.madeOrder):
 * those `retired` says are retired, only the newest `$2` of them.
 */
export const listed = (table: string, made: string, retired: string) => `SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY retired ORDER BY created_at DESC, made DESC) AS newest
    FROM (SELECT x.*, x.${made} AS made, ${retired} AS retired FROM ${table} x WHERE account_id = $1) classified
  ) listed WHERE NOT retired OR newest <= $2 ORDER BY created_at, made`;

/**
 * The destination `d` is out of date: a newer send of its tag (later in routing's order) has been
 * routed to its device since. Its push would replace the newer one on the device, so it is
 * superseded instead, when it comes round again after a retry wait, a lease that ran out or a
 * worker's stop.
 */
export const REPLACED_BY_NEWER = `d.tag IS NOT NULL AND EXISTS (
  SELECT 1 FROM destinations n WHERE n.device_id = d.device_id AND n.tag = d.tag
    AND (n.created_at, n.notification_id) > (d.created_at, d.notification_id))`;

/**
 * A device's unread count (its app's badge), as a column of a claim whose destination row is
 * `destination` and whose device is `v`, for the providers in `providers` (a list the query is given:
 * SQLite's `json_each(?)`, PostgreSQL's `ANY($n)`): the account's notifications from the one after
 * its app was last open up to this one, on the account's (account_id, created_at) index. Null for
 * the others.
 */
export const unreadColumn = (
  destination: string,
  providers: string,
) => `CASE WHEN ${PROVIDER_SQL('v')} ${providers} THEN
  (SELECT count(*) FROM notifications u WHERE u.account_id = v.account_id
     AND u.created_at > COALESCE(v.last_seen_at, 0) AND u.created_at <= ${destination}.created_at) END AS unread`;

/** The same count for one device (`$1`) and a notification made at `$2`: claims made while routing. */
export const UNREAD_OF_DEVICE = `SELECT count(*) AS n FROM devices v
  JOIN notifications u ON u.account_id = v.account_id
  WHERE v.id = $1 AND u.created_at > COALESCE(v.last_seen_at, 0) AND u.created_at <= $2`;
