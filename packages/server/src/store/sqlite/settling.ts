import type { InactiveReason } from '@foxbell/sdk/contract';
import type { DeviceLeaving } from '../../model/devices.js';
import type { SqliteConnection } from './connection.js';

/**
 * The device stops being its account's: removed or left (`removed`), or its push address or
 * device registered by another account, by a switch or a merge (`moved`). It is deactivated and
 * its device key works no more.
 */
export function removeDevice(db: SqliteConnection, deviceId: string, now: number, why: DeviceLeaving): void {
  deactivateDevice(db, deviceId, now, why);
  db.run('UPDATE devices SET key_revoked_at = ? WHERE id = ? AND key_revoked_at IS NULL', now, deviceId);
}

/**
 * The device leaves lists and `auto`, saying why, and what still waits for it is skipped. Alone
 * (its key kept) only when its push service said its push address is gone: it is still the
 * account's, and its app may register a new address (`PATCH /v1/device`). False when it was not
 * active.
 */
export function deactivateDevice(
  db: SqliteConnection,
  deviceId: string,
  now: number,
  why: InactiveReason,
): boolean {
  const changed = db.run(
    'UPDATE devices SET active = 0, removed_at = ?, inactive_reason = ? WHERE id = ? AND active = 1',
    now,
    why,
    deviceId,
  );
  for (const row of db.all(
    `UPDATE destinations INDEXED BY destinations_device_pending SET state = 'skipped', updated_at = ?
     WHERE device_id = ? AND state = 'pending'
     RETURNING notification_id`,
    now,
    deviceId,
  )) {
    settle(db, row.notification_id as string);
  }
  return changed > 0;
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
