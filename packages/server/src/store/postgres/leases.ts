import type { AddressGone } from '../../model/devices.js';
import type { ClaimedDestination, EndedDestination, RecordedEnds } from '../../model/leases.js';
import { nextDeliveryAt, REPLACED_BY_NEWER, unreadColumn } from '../queries.js';
import { claimedFrom, endedOf, maybeNumber } from '../rows.js';
import { PROVIDER_SQL } from '../sql/migrations.js';
import type { LeasesPart } from '../store.js';
import type { PostgresConnection } from './connection.js';
import { lockNotifications, settle, skipWaiting } from './settling.js';

/** What a destination the store ends itself returns, for the worker to log and count. */
const ENDED_COLUMNS = `d.notification_id, d.device_id, d.state, d.push_status,
  (SELECT ${PROVIDER_SQL('v')} FROM devices v WHERE v.id = d.device_id) AS provider`;

/** Destinations leased to workers, and the ends of their attempts. */
export function postgresLeases(db: PostgresConnection): LeasesPart {
  return {
    async claimDestinations({ owner, now, leaseMs, limit, maxAttempts, unreadFor }) {
      return db.transaction(
        async (session): Promise<{ claimed: ClaimedDestination[]; ended: EndedDestination[] }> => {
          const ended: EndedDestination[] = [];
          // A lease that ran out belongs to a worker that died mid-push: that attempt counted. Rows
          // another transaction holds are left for the next pass rather than waited for.
          for (const row of await session.rows(
            `UPDATE destinations d
         SET state = CASE WHEN d.attempts >= $1 THEN 'failed_permanent' ELSE 'pending' END,
           reason = CASE WHEN d.attempts >= $1 THEN 'attempts_exhausted' END,
           lease_owner = NULL, lease_until = NULL, next_attempt_at = $2, updated_at = $2
         FROM (SELECT notification_id, device_id FROM destinations
               WHERE state = 'sending' AND lease_until <= $2 LIMIT 1000 FOR UPDATE SKIP LOCKED) AS due
         WHERE d.notification_id = due.notification_id AND d.device_id = due.device_id
         RETURNING ${ENDED_COLUMNS}`,
            [maxAttempts, now],
          )) {
            if (row.state === 'failed_permanent') ended.push(endedOf(row));
          }
          for (const row of await session.rows(
            `UPDATE destinations d SET state = 'expired', reason = 'expired', updated_at = $1
         FROM (SELECT notification_id, device_id FROM destinations
               WHERE state = 'pending' AND expires_at <= $1 LIMIT 1000 FOR UPDATE SKIP LOCKED) AS due
         WHERE d.notification_id = due.notification_id AND d.device_id = due.device_id
         RETURNING ${ENDED_COLUMNS}`,
            [now],
          )) {
            ended.push(endedOf(row));
          }
          await settle(
            session,
            ended.map((destination) => destination.notificationId),
          );

          // The due rows are leased, but those a newer send of their tag replaced are superseded.
          const due = await session.rows(
            `WITH due AS (
           SELECT d.notification_id, d.device_id, ${REPLACED_BY_NEWER} AS replaced FROM destinations d
           WHERE d.state = 'pending' AND d.next_attempt_at <= $1
           ORDER BY d.next_attempt_at, d.seq LIMIT $2 FOR UPDATE SKIP LOCKED
         ), claimed AS (
           UPDATE destinations d
           SET state = CASE WHEN due.replaced THEN 'superseded' ELSE 'sending' END,
             attempts = CASE WHEN due.replaced THEN d.attempts ELSE d.attempts + 1 END,
             lease_owner = CASE WHEN due.replaced THEN NULL ELSE $3 END,
             lease_until = CASE WHEN due.replaced THEN NULL ELSE $4::bigint END, updated_at = $1
           FROM due WHERE d.notification_id = due.notification_id AND d.device_id = due.device_id
           RETURNING d.notification_id, d.device_id, d.platform, d.attempts, d.push_id, d.created_at,
             d.expires_at, d.seq, d.state
         )
         SELECT c.*, v.provider, v.push_address, v.push_data, COALESCE(v.push_since, v.created_at) AS device_created_at,
           n.payload, n.sender_name, ${unreadColumn('c', '= ANY($5)')}
         FROM claimed c
         JOIN devices v ON v.id = c.device_id
         JOIN notifications n ON n.id = c.notification_id
         WHERE c.state = 'sending'
         ORDER BY c.seq`,
            [now, limit, owner, now + leaseMs, unreadFor],
          );
          return { claimed: claimedFrom(due, (row) => Number(row.attempts)), ended };
        },
      );
    },

    async finishAttempts(attempts, now) {
      if (attempts.length === 0) return { failed: [], deactivated: [] };
      return db.transaction(async (session): Promise<RecordedEnds> => {
        // Every attempt's end in one statement. Only the lease holder may end an attempt: an answer
        // that comes back after another worker took the destination over changes nothing.
        const ended = await session.rows(
          `UPDATE destinations d SET
           state = CASE e.kind WHEN 'accepted' THEN 'accepted' WHEN 'failed_permanent' THEN 'failed_permanent'
                   ELSE 'pending' END,
           push_status = CASE WHEN e.kind = 'released' THEN d.push_status ELSE e.push_status END,
           reason = e.reason,
           -- Released: never attempted after all, so uncounted.
           attempts = CASE WHEN e.kind = 'released' THEN d.attempts - 1 ELSE d.attempts END,
           next_attempt_at = CASE e.kind WHEN 'retry' THEN e.next_attempt_at
                             WHEN 'released' THEN GREATEST($8, COALESCE(e.next_attempt_at, $8))
                             ELSE d.next_attempt_at END,
           lease_owner = NULL, lease_until = NULL, updated_at = $8
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::text[])
           AS e(notification_id, device_id, owner, kind, push_status, next_attempt_at, reason)
         WHERE d.notification_id = e.notification_id AND d.device_id = e.device_id
           AND d.state = 'sending' AND d.lease_owner = e.owner
         RETURNING d.notification_id, d.device_id, e.kind`,
          [
            attempts.map((a) => a.notificationId),
            attempts.map((a) => a.deviceId),
            attempts.map((a) => a.owner),
            attempts.map((a) => a.end.kind),
            attempts.map(({ end }) => (end.kind === 'released' ? null : end.pushStatus)),
            attempts.map(({ end }) =>
              end.kind === 'retry'
                ? end.nextAttemptAt
                : end.kind === 'released'
                  ? (end.notBefore ?? null)
                  : null,
            ),
            attempts.map(({ end }) => (end.kind === 'failed_permanent' ? end.reason : null)),
            now,
          ],
        );
        const gone = new Map<string, AddressGone>();
        for (const { notificationId, deviceId, end } of attempts) {
          if (end.kind === 'failed_permanent' && end.deactivateDevice) {
            gone.set(`${notificationId} ${deviceId}`, end.deactivateDevice);
          }
        }
        const sent = ended
          .filter((row) => row.kind === 'accepted')
          .map((row) => row.notification_id as string);
        const failed = ended.filter((row) => row.kind === 'failed_permanent');
        // The devices to deactivate, by why: their push services may say it in different words.
        const deactivate = new Map<AddressGone, string[]>();
        for (const row of failed) {
          const why = gone.get(`${row.notification_id} ${row.device_id}`);
          if (why) deactivate.set(why, [...(deactivate.get(why) ?? []), row.device_id as string]);
        }
        // Destinations first, then notifications in id order (see settle): a transaction holding a
        // notification's lock never waits for a destination's, so workers cannot deadlock.
        const skipped: string[] = [];
        const deactivated: string[] = [];
        for (const [why, deviceIds] of deactivate) {
          const done = await skipWaiting(session, deviceIds, now, why);
          skipped.push(...done.notifications);
          deactivated.push(...done.devices);
        }
        if (sent.length > 0) {
          await lockNotifications(session, sent);
          await session.rows(
            `UPDATE notifications SET status = 'sent_to_push' WHERE id = ANY($1) AND status = 'accepted'`,
            [[...new Set(sent)]],
          );
        }
        await settle(session, [...failed.map((row) => row.notification_id as string), ...skipped]);
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
      if (destinations.length === 0) return 0;
      return db.transaction((session) =>
        session.count(
          `UPDATE destinations d SET lease_until = $4
         FROM unnest($1::text[], $2::text[]) AS k(notification_id, device_id)
         WHERE d.notification_id = k.notification_id AND d.device_id = k.device_id
           AND d.state = 'sending' AND d.lease_owner = $3`,
          [destinations.map((d) => d.notificationId), destinations.map((d) => d.deviceId), owner, until],
        ),
      );
    },

    async nextDeliveryAt() {
      const [row] = await db.read(nextDeliveryAt('SELECT min(available_at) AS at FROM route_queue'));
      return maybeNumber(row?.at) ?? undefined;
    },
  };
}
