import { statusAfter } from '@foxbell/sdk/server-contract';
import type { StoredNotification } from '../../model/notifications.js';
import { inboxPageOf, notificationOf, type Row } from '../rows.js';
import type { RecordsPart } from '../store.js';
import type { SqliteConnection } from './connection.js';

/**
 * Status records: a notification with its destinations and handled events. Each is read in one
 * transaction, so as of one moment: a worker in another process may commit between two statements.
 */
export function sqliteRecords(db: SqliteConnection): RecordsPart {
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

    async recordEvent(event) {
      return db.write((): 'recorded' | 'no_notification' | 'not_routed' => {
        const notification = db.get(
          'SELECT status FROM notifications WHERE id = ? AND account_id = ?',
          event.notificationId,
          event.accountId,
        );
        if (!notification) return 'no_notification';
        const destination = db.get(
          'SELECT platform FROM destinations WHERE notification_id = ? AND device_id = ?',
          event.notificationId,
          event.deviceId,
        );
        if (!destination) return 'not_routed';
        // Once per device and action: a report sent again is answered alike and changes nothing.
        db.run(
          `INSERT INTO handled_events (notification_id, device_id, platform, action, at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (notification_id, device_id, action) DO NOTHING`,
          event.notificationId,
          event.deviceId,
          destination.platform,
          event.action,
          event.now,
        );
        const status = statusAfter(String(notification.status), event.action);
        if (status) db.run('UPDATE notifications SET status = ? WHERE id = ?', status, event.notificationId);
        return 'recorded';
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
