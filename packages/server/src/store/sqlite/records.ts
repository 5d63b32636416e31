import type { StoredNotification } from '../../model/notifications.js';
import { inboxPageOf, notificationOf, type Row } from '../rows.js';
import type { RecordsPart } from '../store.js';
import type { SqliteConnection } from './connection.js';

/**
 * Status records: a notification with its destinations and handled events. Each is read in one
 * transaction, so as of one moment: a worker in another process may commit between two statements.
 */
export function sqliteRecords(db: SqliteConnection): Omit<RecordsPart, 'recordEvent'> {
  const recordOf = (row: Row): StoredNotification => {
    const id = row.id as string;
    return notificationOf(
      row,
      db.all(
        `SELECT d.*, v.name AS device_name FROM destinations d LEFT JOIN devices v ON v.id = d.device_id
         WHERE d.notification_id = ? ORDER BY d.rowid`,
        id,
      ),
      db.all('SELECT * FROM handled_events WHERE notification_id = ? ORDER BY rowid', id),
    );
  };

  return {
    async getNotification(id) {
      return db.transaction(() => {
        const row = db.get('SELECT * FROM notifications WHERE id = ?', id);
        return row && recordOf(row);
      });
    },

    async inbox(accountId, page) {
      return db.transaction(() => inboxPage(accountId, page));
    },
  };

  function inboxPage(accountId: string, page: Parameters<RecordsPart['inbox']>[1]) {
    const rows = page.after
      ? db.all(
          `SELECT * FROM notifications WHERE account_id = ? AND created_at >= ? AND (created_at, id) < (?, ?)
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          accountId,
          page.since,
          page.after.createdAt,
          page.after.id,
          page.limit + 1,
        )
      : db.all(
          `SELECT * FROM notifications WHERE account_id = ? AND created_at >= ?
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          accountId,
          page.since,
          page.limit + 1,
        );
    return inboxPageOf(rows, page.limit, recordOf);
  }
}
