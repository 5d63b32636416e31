import type {
  ClaimedDestination,
  EndedDestination,
  FinishedAttempt,
  RecordedEnds,
} from '../../model/leases.js';
import { nextDeliveryAt, REPLACED_BY_NEWER, unreadColumn } from '../queries.js';
import { claimedFrom, endedOf, maybeNumber, type Row } from '../rows.js';
import { PROVIDER_SQL } from '../sql/migrations.js';
import type { LeasesPart } from '../store.js';
import type { SqliteConnection } from './connection.js';
import { deactivateDevice, settle } from './settling.js';

/** What a destination the store ends itself returns, for the worker to log and count. */
const ENDED_COLUMNS = `notification_id, device_id, state, push_status,
  (SELECT ${PROVIDER_SQL('v')} FROM devices v WHERE v.id = destinations.device_id) AS provider`;

/** The routing queue's oldest send: the queue is the notifications not yet routed. */
const QUEUED_SINCE =
  'SELECT min(created_at) AS at FROM notifications INDEXED BY notifications_queued WHERE routed_at IS NULL';

/** Destinations leased to workers, and the ends of their attempts. */
export function sqliteLeases(db: SqliteConnection, leasing: (owner: string) => void): LeasesPart {
  /**
   * The accepted ends of a batch, nearly all of it, in two statements rather than two per push:
   * the destinations whose lease is still the finisher's, then their notifications.
   */
  const finishAccepted = (attempts: FinishedAttempt[], now: number): void => {
    const accepted = attempts.flatMap(({ notificationId, deviceId, owner, end }) =>
      end.kind === 'accepted' ? [[notificationId, deviceId, owner, end.pushStatus]] : [],
    );
    if (accepted.length === 0) return;
    const finished = db.all(
      `UPDATE destinations SET state = 'accepted', push_status = a.value ->> 3,
         lease_owner = NULL, lease_until = NULL, updated_at = ?
       FROM json_each(?) AS a
       WHERE destinations.notification_id = a.value ->> 0 AND destinations.device_id = a.value ->> 1
         AND destinations.state = 'sending' AND destinations.lease_owner = a.value ->> 2
       RETURNING destinations.notification_id`,
      now,
      JSON.stringify(accepted),
    );
    db.run(
      `UPDATE notifications SET status = 'sent_to_push'
       WHERE id IN (SELECT value FROM json_each(?)) AND status = 'accepted'`,
      JSON.stringify([...new Set(finished.map((row) => row.notification_id))]),
    );
  };

  return {
    async claimDestinations({ owner, now, leaseMs, limit, maxAttempts, unreadFor }) {
      leasing(owner);
      return db.transaction((): { claimed: ClaimedDestination[]; ended: EndedDestination[] } => {
        const ended: EndedDestination[] = [];
        // A lease that ran out belongs to a worker that died mid-push: that attempt counted.
        for (const row of db.all(
          `UPDATE destinations
           SET state = CASE WHEN attempts >= ? THEN 'failed_permanent' ELSE 'pending' END,
             reason = CASE WHEN attempts >= ? THEN 'attempts_exhausted' END,
             lease_owner = NULL, lease_until = NULL, next_attempt_at = ?, updated_at = ?
           WHERE state = 'sending' AND lease_until <= ? RETURNING ${ENDED_COLUMNS}`,
          maxAttempts,
          maxAttempts,
          now,
          now,
          now,
        )) {
          if (row.state === 'failed_permanent') ended.push(endedOf(row));
        }
        for (const row of db.all(
          `UPDATE destinations SET state = 'expired', reason = 'expired', updated_at = ?
           WHERE state = 'pending' AND expires_at <= ? RETURNING ${ENDED_COLUMNS}`,
          now,
          now,
        )) {
          ended.push(endedOf(row));
        }
        for (const id of new Set(ended.map((destination) => destination.notificationId))) settle(db, id);

        const candidates = db.all(
          `SELECT d.rowid AS rid, d.notification_id, d.device_id, d.platform, d.attempts, d.push_id,
             d.created_at, d.expires_at, v.provider, v.push_address, v.push_data,
             COALESCE(v.push_since, v.created_at) AS device_created_at,
             ${REPLACED_BY_NEWER} AS replaced, ${unreadColumn('d', 'IN (SELECT value FROM json_each(?))')}
           FROM destinations d
           JOIN devices v ON v.id = d.device_id
           WHERE d.state = 'pending' AND d.next_attempt_at <= ?
           ORDER BY d.next_attempt_at, d.rowid LIMIT ?`,
          JSON.stringify(unreadFor),
          now,
          limit,
        );
        const replaced = candidates.filter((row) => row.replaced === 1);
        if (replaced.length > 0) {
          db.run(
            `UPDATE destinations SET state = 'superseded', updated_at = ? WHERE rowid IN (SELECT value FROM json_each(?))`,
            now,
            JSON.stringify(replaced.map((row) => row.rid)),
          );
        }
        const due = replaced.length === 0 ? candidates : candidates.filter((row) => row.replaced !== 1);
        if (due.length === 0) return { claimed: [], ended };
        // Each notification's payload once, not once per device it goes to.
        const notifications = new Map<string, Row>();
        for (const row of db.all(
          'SELECT id, payload, sender_name FROM notifications WHERE id IN (SELECT value FROM json_each(?))',
          JSON.stringify([...new Set(due.map((row) => row.notification_id as string))]),
        )) {
          notifications.set(row.id as string, row);
        }
        for (const row of due) {
          const notification = notifications.get(row.notification_id as string) as Row;
          row.payload = notification.payload;
          row.sender_name = notification.sender_name;
        }
        db.run(
          `UPDATE destinations SET state = 'sending', attempts = attempts + 1, lease_owner = ?, lease_until = ?,
             updated_at = ? WHERE rowid IN (SELECT value FROM json_each(?))`,
          owner,
          now + leaseMs,
          now,
          JSON.stringify(due.map((row) => row.rid)),
        );
        return { claimed: claimedFrom(due, (row) => Number(row.attempts) + 1), ended };
      });
    },

    async finishAttempts(attempts, now) {
      return db.transaction((): RecordedEnds => {
        const recorded: RecordedEnds = { failed: [], deactivated: [] };
        // Only the lease holder may end an attempt; each update below checks it.
        const where = `WHERE notification_id = ? AND device_id = ? AND state = 'sending' AND lease_owner = ?`;
        const freed = 'lease_owner = NULL, lease_until = NULL';
        finishAccepted(attempts, now);
        for (const { notificationId, deviceId, owner, end } of attempts) {
          const key = [notificationId, deviceId, owner];
          switch (end.kind) {
            case 'accepted':
              break;
            case 'retry':
              db.run(
                `UPDATE destinations SET state = 'pending', push_status = ?, next_attempt_at = ?, ${freed},
                   updated_at = ? ${where}`,
                end.pushStatus,
                end.nextAttemptAt,
                now,
                ...key,
              );
              break;
            case 'failed_permanent':
              if (
                db.run(
                  `UPDATE destinations SET state = 'failed_permanent', push_status = ?, reason = ?, ${freed},
                     updated_at = ? ${where}`,
                  end.pushStatus,
                  end.reason,
                  now,
                  ...key,
                ) > 0
              ) {
                recorded.failed.push({ notificationId, deviceId });
                if (end.deactivateDevice && deactivateDevice(db, deviceId, now, end.deactivateDevice)) {
                  recorded.deactivated.push(deviceId);
                }
                settle(db, notificationId);
              }
              break;
            case 'released':
              db.run(
                `UPDATE destinations SET state = 'pending', attempts = attempts - 1, next_attempt_at = ?,
                   ${freed}, updated_at = ? ${where}`,
                Math.max(now, end.notBefore ?? now),
                now,
                ...key,
              );
              break;
          }
        }
        return recorded;
      });
    },

    async renewLeases({ owner, until, destinations }) {
      if (destinations.length === 0) return 0;
      return db.run(
        `UPDATE destinations SET lease_until = ?
         FROM json_each(?) AS k
         WHERE destinations.notification_id = k.value ->> 0 AND destinations.device_id = k.value ->> 1
           AND destinations.state = 'sending' AND destinations.lease_owner = ?`,
        until,
        JSON.stringify(destinations.map((d) => [d.notificationId, d.deviceId])),
        owner,
      );
    },

    async nextDeliveryAt() {
      const row = db.get(nextDeliveryAt(QUEUED_SINCE));
      return maybeNumber(row?.at) ?? undefined;
    },
  };
}
