import type { SqliteConnection } from './connection.js';

/**
 * The device stops being its account's (removed, left, moved to another account by its push
 * address, or merged away): it is deactivated and its device key works no more.
 */
export function removeDevice(db: SqliteConnection, deviceId: string, now: number): void {
  deactivateDevice(db, deviceId, now);
  db.run('UPDATE devices SET key_revoked_at = ? WHERE id = ? AND key_revoked_at IS NULL', now, deviceId);
}

/**
 * The device leaves lists and `auto`, and what still waits for it is skipped. Alone (its key kept)
 * only when its push service said its push address is gone: it is still the account's, and its app
 * may register a new address (`PATCH /v1/device`).
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
