import { inboxPageOf, notificationOf, type Row } from '../rows.js';
import type { RecordsPart } from '../store.js';
import type { PostgresConnection } from './connection.js';

/**
 * A notification row with its destinations and handled events aggregated in the same statement
 * (`n` is the notification): one round trip, and one snapshot, for a whole record.
 */
const WITH_DELIVERY = `n.*,
  (SELECT coalesce(json_agg(json_build_object('device_id', d.device_id, 'device_name', v.name,
     'platform', d.platform, 'state', d.state, 'push_status', d.push_status, 'reason', d.reason,
     'updated_at', d.updated_at)
     ORDER BY d.seq), '[]')
   FROM destinations d LEFT JOIN devices v ON v.id = d.device_id WHERE d.notification_id = n.id) AS destination_rows,
  (SELECT coalesce(json_agg(json_build_object('device_id', h.device_id, 'platform', h.platform,
     'action', h.action, 'at', h.at) ORDER BY h.seq), '[]')
   FROM handled_events h WHERE h.notification_id = n.id) AS handled_rows`;

const recordOf = (row: Row) => notificationOf(row, row.destination_rows as Row[], row.handled_rows as Row[]);

/** Status records: a notification with its destinations and handled events, each read in one statement. */
export function postgresRecords(db: PostgresConnection): Omit<RecordsPart, 'recordEvent'> {
  return {
    async getNotification(id) {
      const [row] = await db.read(`SELECT ${WITH_DELIVERY} FROM notifications n WHERE n.id = $1`, [id]);
      return row && recordOf(row);
    },

    async inbox(accountId, page) {
      const rows = page.after
        ? await db.read(
            `SELECT ${WITH_DELIVERY} FROM notifications n
             WHERE n.account_id = $1 AND n.created_at >= $2 AND (n.created_at, n.id) < ($3, $4)
             ORDER BY n.created_at DESC, n.id DESC LIMIT $5`,
            [accountId, page.since, page.after.createdAt, page.after.id, page.limit + 1],
          )
        : await db.read(
            `SELECT ${WITH_DELIVERY} FROM notifications n WHERE n.account_id = $1 AND n.created_at >= $2
             ORDER BY n.created_at DESC, n.id DESC LIMIT $3`,
            [accountId, page.since, page.limit + 1],
          );
      return inboxPageOf(rows, page.limit, recordOf);
    },
  };
}
