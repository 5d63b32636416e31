import type { InactiveReason } from '@foxbell/sdk/contract';
import type { DeviceLeaving } from '../../model/devices.js';
import { all, type Dialect, type Plan } from './plan.js';

/** What ends devices and notifications for good, as plans the other operations run inside theirs. */
export function settling(d: Dialect) {
  const revokeKeys = `UPDATE devices SET key_revoked_at = $1 WHERE id ${d.inList('$2')} AND key_revoked_at IS NULL`;
  const deactivate = `UPDATE devices SET active = ${d.false}, removed_at = $1, inactive_reason = $3
    WHERE id ${d.inList('$2')} AND active = ${d.true} RETURNING id`;
  const skip = `UPDATE destinations SET state = 'skipped', updated_at = $1
    WHERE device_id ${d.inList('$2')} AND state = 'pending' RETURNING notification_id`;
  const lock = `SELECT 1 FROM notifications WHERE id ${d.inList('$1')} ORDER BY id${d.forUpdate}`;
  const dropExpired = `UPDATE notifications SET status = 'dropped', reason = 'expired'
    WHERE id ${d.inList('$1')} AND status = 'accepted'
      AND NOT EXISTS (SELECT 1 FROM destinations WHERE notification_id = notifications.id
                      AND state IN ('pending', 'sending', 'accepted'))
      AND EXISTS (SELECT 1 FROM destinations WHERE notification_id = notifications.id AND state = 'expired')`;

  /**
   * The devices leave lists and `auto` (removed, or their push service said their push addresses
   * are gone; their keys kept then: they are still their accounts', and their apps may register
   * new ones with `PATCH /v1/device`), saying why, and what still waits for them is skipped.
   * Returns the notifications whose destinations it skipped, and the devices it made inactive (not
   * those inactive already).
   */
  function* skipWaiting(deviceIds: readonly string[], now: number, why: InactiveReason) {
    if (deviceIds.length === 0) return { notifications: [], devices: [] };
    const devices = yield* all(deactivate, now, d.list(deviceIds), why);
    const skipped = yield* all(skip, now, d.list(deviceIds));
    return {
      notifications: skipped.map((row) => row.notification_id as string),
      devices: devices.map((row) => row.id as string),
    };
  }
  /**
   * Locks notification rows in id order, so two transactions never wait for each other's: on
   * PostgreSQL, where transactions run at once. SQLite's one writer runs alone and locks no row.
   */
  function* lockNotifications(ids: readonly string[]): Plan<void> {
    if (d.forUpdate === '') return;
    yield* all(lock, d.list([...new Set(ids)]));
  }
  /**
   * A notification none of whose devices has it or may still get it, and whose deadline stopped
   * at least one of them, is dropped as `expired`: ttl ran out first. The notification's lock is
   * taken first and the check is a later statement, so of two workers ending its last two
   * destinations at once, the second sees the first's change.
   */
  function* settle(notificationIds: readonly string[]): Plan<void> {
    if (notificationIds.length === 0) return;
    yield* lockNotifications(notificationIds);
    yield* all(dropExpired, d.list([...new Set(notificationIds)]));
  }
  /**
   * The devices stop being their accounts': removed or left (`removed`), or their push addresses
   * or devices registered by other accounts, by a switch or a merge (`moved`). Deactivated, and
   * their device keys work no more.
   */
  function* removeDevices(deviceIds: readonly string[], now: number, why: DeviceLeaving): Plan<void> {
    yield* settle((yield* skipWaiting(deviceIds, now, why)).notifications);
    yield* all(revokeKeys, now, d.list(deviceIds));
  }
  return { removeDevices, skipWaiting, lockNotifications, settle };
}
