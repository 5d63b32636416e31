import type { InactiveReason } from '@foxbell/sdk/contract';
import type { DeviceLeaving } from '../../model/devices.js';
import type { Session } from './connection.js';

/**
 * The devices stop being their accounts': removed or left (`removed`), or their push addresses or
 * devices registered by other accounts, by a switch or a merge (`moved`). Deactivated, and their
 * device keys work no more.
 */
export async function removeDevices(
  db: Session,
  deviceIds: string[],
  now: number,
  why: DeviceLeaving,
): Promise<void> {
  await settle(db, (await skipWaiting(db, deviceIds, now, why)).notifications);
  await db.rows('UPDATE devices SET key_revoked_at = $1 WHERE id = ANY($2) AND key_revoked_at IS NULL', [
    now,
    deviceIds,
  ]);
}

/**
 * The devices leave lists and `auto` (removed, or their push service said their push addresses
 * are gone; their keys kept then: they are still their accounts', and their apps may register new
 * ones with `PATCH /v1/device`), saying why, and what still waits for them is skipped. Returns the
 * notifications whose destinations it skipped, and the devices it made inactive (not those
 * inactive already).
 */
export async function skipWaiting(
  db: Session,
  deviceIds: string[],
  now: number,
  why: InactiveReason,
): Promise<{ notifications: string[]; devices: string[] }> {
  if (deviceIds.length === 0) return { notifications: [], devices: [] };
  const devices = await db.rows(
    'UPDATE devices SET active = false, removed_at = $1, inactive_reason = $3 WHERE id = ANY($2) AND active RETURNING id',
    [now, deviceIds, why],
  );
  const rows = await db.rows(
    `UPDATE destinations SET state = 'skipped', updated_at = $1 WHERE device_id = ANY($2) AND state = 'pending'
     RETURNING notification_id`,
    [now, deviceIds],
  );
  return {
    notifications: rows.map((row) => row.notification_id as string),
    devices: devices.map((row) => row.id as string),
  };
}

/** Locks notification rows in id order, so two transactions never wait for each other's. */
export async function lockNotifications(db: Session, ids: string[]): Promise<void> {
  await db.rows('SELECT 1 FROM notifications WHERE id = ANY($1) ORDER BY id FOR UPDATE', [[...new Set(ids)]]);
}

/**
 * A notification none of whose devices has it or may still get it, and whose deadline stopped
 * at least one of them, is dropped as `expired`: ttl ran out first. The notification's lock is
 * taken first and the check is a later statement, so of two workers ending its last two
 * destinations at once, the second sees the first's change.
 */
export async function settle(db: Session, notificationIds: string[]): Promise<void> {
  if (notificationIds.length === 0) return;
  await lockNotifications(db, notificationIds);
  await db.rows(
    `UPDATE notifications n SET status = 'dropped', reason = 'expired'
     WHERE n.id = ANY($1) AND n.status = 'accepted'
       AND NOT EXISTS (SELECT 1 FROM destinations WHERE notification_id = n.id
                       AND state IN ('pending', 'sending', 'accepted'))
       AND EXISTS (SELECT 1 FROM destinations WHERE notification_id = n.id AND state = 'expired')`,
    [[...new Set(notificationIds)]],
  );
}
