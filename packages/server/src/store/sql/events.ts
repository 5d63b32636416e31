import { statusAfter } from '@foxbell/sdk/server-contract';
import type { RecordsPart } from '../store.js';
import { all, type Dialect, get, type Plan } from './plan.js';

/** An app's report that a notification was opened or cleared on its device. */
export function events(d: Dialect): Pick<RecordsPart, 'recordEvent'> {
  const notificationOf = `SELECT status FROM notifications WHERE id = $1 AND account_id = $2${d.forUpdate}`;
  return {
    async recordEvent(event) {
      return d.write(function* (): Plan<'recorded' | 'no_notification' | 'not_routed'> {
        const notification = yield* get(notificationOf, event.notificationId, event.accountId);
        if (!notification) return 'no_notification';
        const destination = yield* get(
          'SELECT platform FROM destinations WHERE notification_id = $1 AND device_id = $2',
          event.notificationId,
          event.deviceId,
        );
        if (!destination) return 'not_routed';
        // Once per device and action: a report sent again is answered alike and changes nothing.
        yield* all(
          `INSERT INTO handled_events (notification_id, device_id, platform, action, at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (notification_id, device_id, action) DO NOTHING`,
          event.notificationId,
          event.deviceId,
          destination.platform,
          event.action,
          event.now,
        );
        const status = statusAfter(String(notification.status), event.action);
        if (status)
          yield* all('UPDATE notifications SET status = $1 WHERE id = $2', status, event.notificationId);
        return 'recorded';
      });
    },
  };
}
