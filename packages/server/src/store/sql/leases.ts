import type { AddressGone } from '../../model/devices.js';
import type { EndedDestination } from '../../model/leases.js';
import { endedOf, maybeNumber } from '../rows.js';
import type { LeasesPart } from '../store.js';
import { PROVIDER_SQL } from './migrations.js';
import { all, type Dialect, get, overRows, rowsStatement } from './plan.js';
import { settling } from './settling.js';

/** What a destination the store ends itself returns, for the worker to log and count. */
const ENDED_COLUMNS = `destinations.notification_id, destinations.device_id, state, push_status,
  (SELECT ${PROVIDER_SQL('v')} FROM devices v WHERE v.id = destinations.device_id) AS provider`;

/** Destinations leased to workers, and the ends of their attempts. `leasing` is told of an owner before its first lease. */
export function leases(d: Dialect, leasing?: (owner: string) => void): LeasesPart {
  const { settle, skipWaiting, lockNotifications } = settling(d);
  // A lease that ran out belongs to a worker that died mid-push: that attempt counted.
  const takeBackRunOut = `UPDATE destinations
    SET state = CASE WHEN attempts >= $1 THEN 'failed_permanent' ELSE 'pending' END,
      reason = CASE WHEN attempts >= $1 THEN 'attempts_exhausted' END,
      lease_owner = NULL, lease_until = NULL, next_attempt_at = $2, updated_at = $2
    ${d.unlocked(`state = 'sending' AND lease_until <= $2`)} RETURNING ${ENDED_COLUMNS}`;
  const expire = `UPDATE destinations SET state = 'expired', reason = 'expired', updated_at = $1
    ${d.unlocked(`state = 'pending' AND expires_at <= $1`)} RETURNING ${ENDED_COLUMNS}`;
  // Only the lease holder may end an attempt: an answer that comes back after another worker took
  // the destination over changes nothing. Nearly every end is an acceptance: those in a statement
  // of their own, lighter than the one for every kind.
  const held = `destinations.notification_id = e.notification_id AND destinations.device_id = e.device_id
    AND destinations.state = 'sending' AND destinations.lease_owner = e.owner`;
  const recordAccepted = rowsStatement(
    d,
    'e(notification_id text, device_id text, owner text, push_status int)',
    `UPDATE destinations SET state = 'accepted', push_status = e.push_status, lease_owner = NULL,
       lease_until = NULL, updated_at = $1
     FROM $rows WHERE ${held} RETURNING destinations.notification_id`,
  );
  const recordEnded = rowsStatement(
    d,
    `e(notification_id text, device_id text, owner text, state text, released int, push_status int,
       next_attempt_at bigint, reason text)`,
    `UPDATE destinations SET state = e.state,
       push_status = CASE WHEN e.released = 1 THEN destinations.push_status ELSE e.push_status END,
       reason = e.reason, attempts = destinations.attempts - e.released,
       next_attempt_at = COALESCE(e.next_attempt_at, destinations.next_attempt_at),
       lease_owner = NULL, lease_until = NULL, updated_at = $1
     FROM $rows WHERE ${held}
     RETURNING destinations.notification_id, destinations.device_id, destinations.state`,
  );
  const sentToPush = `UPDATE notifications SET status = 'sent_to_push' WHERE id ${d.inList('$1')} AND status = 'accepted'`;
  const renew = rowsStatement(
    d,
    'k(notification_id text, device_id text)',
    `UPDATE destinations SET lease_until = $2 FROM $rows
     WHERE destinations.notification_id = k.notification_id AND destinations.device_id = k.device_id
       AND destinations.state = 'sending' AND destinations.lease_owner = $1
     RETURNING 1`,
  );
  // A queued notification, a destination due or expiring, or a lease running out. min() over rows,
  // not min(a, b, …), which is NULL as soon as one argument is.
  const nextAt = `SELECT min(at) AS at FROM (
    ${d.queuedSince}
    UNION ALL SELECT min(next_attempt_at) FROM destinations WHERE state = 'pending'
    UNION ALL SELECT min(expires_at) FROM destinations WHERE state = 'pending'
    UNION ALL SELECT min(lease_until) FROM destinations WHERE state = 'sending'
  ) AS due`;

  return {
    async claimDestinations({ owner, now, leaseMs, limit, maxAttempts, unreadFor }) {
      leasing?.(owner);
      return d.writeUnsynced(function* () {
        const ended: EndedDestination[] = [];
        for (const row of yield* all(takeBackRunOut, maxAttempts, now)) {
          if (row.state === 'failed_permanent') ended.push(endedOf(row));
        }
        for (const row of yield* all(expire, now)) ended.push(endedOf(row));
        yield* settle(ended.map((destination) => destination.notificationId));
        const claimed = yield* d.claim({ owner, now, leaseMs, limit, unreadFor });
        return { claimed, ended };
      });
    },

    async finishAttempts(attempts, now) {
      if (attempts.length === 0) return { failed: [], deactivated: [] };
      const acceptedRows: unknown[][] = [];
      const otherRows: unknown[][] = [];
      const gone = new Map<string, AddressGone>();
      for (const { notificationId, deviceId, owner, end } of attempts) {
        const key = [notificationId, deviceId, owner];
        switch (end.kind) {
          case 'accepted':
            acceptedRows.push([...key, end.pushStatus]);
            break;
          case 'retry':
            otherRows.push([...key, 'pending', 0, end.pushStatus, end.nextAttemptAt, null]);
            break;
          case 'failed_permanent':
            otherRows.push([...key, end.kind, 0, end.pushStatus, null, end.reason]);
            if (end.deactivateDevice) gone.set(`${notificationId} ${deviceId}`, end.deactivateDevice);
            break;
          // Not attempted after all: uncounted, its push_status kept, due again at once (or at its
          // `notBefore` if later).
          case 'released':
            otherRows.push([...key, 'pending', 1, null, Math.max(now, end.notBefore ?? now), null]);
        }
      }
      return d.writeUnsynced(function* () {
        const sent = yield* overRows(recordAccepted, acceptedRows, now);
        const ended = yield* overRows(recordEnded, otherRows, now);
        const failed = ended.filter((row) => row.state === 'failed_permanent');
        // The devices to deactivate, by why: their push services may say it in different words.
        const deactivate = new Map<AddressGone, string[]>();
        for (const row of failed) {
          const why = gone.get(`${row.notification_id} ${row.device_id}`);
          if (why) deactivate.set(why, [...(deactivate.get(why) ?? []), row.device_id as string]);
        }
        // Destinations first, then notifications in id order (see settle): a transaction holding a
        // notification's lock never waits for a destination's, so workers cannot deadlock.
        const unsettled: string[] = [];
        const deactivated: string[] = [];
        for (const [why, deviceIds] of deactivate) {
          const done = yield* skipWaiting(deviceIds, now, why);
          unsettled.push(...done.notifications);
          deactivated.push(...done.devices);
        }
        if (sent.length > 0) {
          const ids = [...new Set(sent.map((row) => row.notification_id as string))];
          yield* lockNotifications(ids);
          yield* all(sentToPush, d.list(ids));
        }
        yield* settle([...failed.map((row) => row.notification_id as string), ...unsettled]);
        return {
          failed: failed.map((row) => ({
            notificationId: row.notification_id as string,
            deviceId: row.device_id as string,
          })),
          deactivated,
        };
      });
    },

    async renewLeases({ owner, until, destinations }) {
      // Nothing in flight: no transaction to open.
      if (destinations.length === 0) return 0;
      const renewed = await d.writeUnsynced(() =>
        overRows(
          renew,
          destinations.map((key) => [key.notificationId, key.deviceId]),
          owner,
          until,
        ),
      );
      return renewed.length;
    },

    async nextDeliveryAt() {
      const row = await d.read(get(nextAt));
      return maybeNumber(row?.at) ?? undefined;
    },
  };
}
