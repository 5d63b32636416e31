import { jsonArrayRows, notificationOf, type Row } from '../rows.js';
import type { RecordsPart } from '../store.js';
import { all, type Dialect } from './plan.js';

/**
 * Status records: a notification with its destinations and handled events, aggregated in the
 * statement that reads it (`n` is the notification): one round trip, and one snapshot, for a
 * whole record.
 */
export function records(d: Dialect): Omit<RecordsPart, 'recordEvent'> {
  const withDelivery = `n.*,
    (SELECT ${d.jsonArray(
      `'device_id', d.device_id, 'device_name', v.name, 'platform', d.platform, 'state', d.state,
       'push_status', d.push_status, 'reason', d.reason, 'updated_at', d.updated_at`,
      `d.${d.madeOrder}`,
    )} FROM destinations d LEFT JOIN devices v ON v.id = d.device_id WHERE d.notification_id = n.id)
      AS destination_rows,
    (SELECT ${d.jsonArray(
      `'device_id', h.device_id, 'platform', h.platform, 'action', h.action, 'at', h.at`,
      `h.${d.madeOrder}`,
    )} FROM handled_events h WHERE h.notification_id = n.id) AS handled_rows`;
  const one = `SELECT ${withDelivery} FROM notifications n WHERE n.id = $1`;
  const inboxPage = (after: string) => `SELECT ${withDelivery} FROM notifications n
    WHERE n.account_id = $1 AND n.created_at >= $2 ${after}
    ORDER BY n.created_at DESC, n.id DESC LIMIT $3`;
  const firstPage = inboxPage('');
  const nextPage = inboxPage('AND (n.created_at, n.id) < ($4, $5)');
  const recordOf = (row: Row) =>
    notificationOf(row, jsonArrayRows(row.destination_rows), jsonArrayRows(row.handled_rows));

  return {
    async getNotification(id) {
      const [row] = await d.read(all(one, id));
      return row && recordOf(row);
    },

    async inbox(accountId, { since, after, limit }) {
      const rows = await d.read(
        after
          ? all(nextPage, accountId, since, limit + 1, after.createdAt, after.id)
          : all(firstPage, accountId, since, limit + 1),
      );
      // Read one past the limit: a row past it says more follow.
      const items = rows.slice(0, limit).map(recordOf);
      const last = items.at(-1);
      return {
        items,
        next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : undefined,
      };
    },
  };
}
