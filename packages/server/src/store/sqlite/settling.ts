import type { SqliteConnection } from './connection.js';

/**
 * The device leaves lists and `auto` (removed, or APNs said its push token is gone), and what
 * still waits for it is skipped.
 */
export function deactivateDevice(db: SqliteConnection, deviceId: string, now: number): void {
  db.run('UPDATE devices SET active = 0, removed_at = ? WHERE id = ? AND active = 1', now, deviceId);
  for (const row of db.all(
    `UPDATE destinations INDEXED BY destinations_device_pending SET state = 'skipped', updated_at = ?
     WHERE device_id = ? AND state = 'pending'
     RETURNING notification_id`,
    now,
    deviceId,
  )) {
    settle(db, row.notification_id as string);
  }
}

/**
 * A notification none of whose devices has it or may still get it, and whose deadline stopped
 * at least one of them, is dropped as `expired`: ttl ran out first.
 */
export function settle(db: SqliteConnection, notificationId: string): void {
  db.run(
    `UPDATE notifications SET status = 'dropped', reason = 'expired'
     WHERE id = ? AND status = 'accepted'
       AND NOT EXISTS (SELECT 1 FROM destinations WHERE notification_id = ?
                       AND state IN ('pending', 'sending', 'accepted'))
       AND EXISTS (SELECT 1 FROM destinations WHERE notification_id = ? AND state = 'expired')`,
    notificationId,
    notificationId,
    notificationId,
  );
}
