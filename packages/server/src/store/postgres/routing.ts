import type { Device } from '../../model/devices.js';
import {
  FanOut,
  type PlacedDestination,
  type PlannedDestination,
  RoutePlan,
} from '../../model/route-plan.js';
import type { QueuedNotification } from '../../model/routing.js';
import { unreadOfDevice } from '../queries.js';
import { deviceOf, type Row, routeInputOf } from '../rows.js';
import type { RoutingPart } from '../store.js';
import { advisoryLocks, type PostgresConnection, type Session } from './connection.js';

const idOf = (d: PlannedDestination) => d.notification.input.notification.id;

export function postgresRouting(db: PostgresConnection): RoutingPart {
  const fanOut = new FanOut();
  return {
    async routeQueued({ now, limit, decide, lease }) {
      return db.transaction(async (session) => {
        const plan = new RoutePlan(lease?.limit ?? 0, fanOut);
        const devicesOf = new Map<string, Device[]>();
        let routed = 0;
        while (routed < limit && plan.wantsMore) {
          const wanted = plan.chunkSize(limit - routed);
          // Another worker's chunk is skipped, not waited for: each queued notification is routed once.
          const rows = await session.rows(
            `SELECT n.id, n.account_id, n.payload, n.sender_name, n.created_at, n.expires_at,
               t.revoked_at AS token_revoked_at, t.expires_at AS token_expires_at
             FROM route_queue q
             JOIN notifications n ON n.id = q.notification_id
             JOIN tokens t ON t.id = n.token_id
             WHERE q.available_at <= $1 ORDER BY q.available_at, q.notification_id LIMIT $2
             FOR UPDATE OF q SKIP LOCKED`,
            [now, wanted],
          );
          if (rows.length === 0) break;
          const unknown = [...new Set(rows.map((row) => row.account_id as string))].filter(
            (id) => !devicesOf.has(id),
          );
          if (unknown.length > 0) {
            for (const id of unknown) devicesOf.set(id, []);
            for (const row of await session.rows(
              'SELECT * FROM devices WHERE account_id = ANY($1) AND active ORDER BY created_at, seq',
              [unknown],
            )) {
              devicesOf.get(row.account_id as string)?.push(deviceOf(row));
            }
          }
          const queued: QueuedNotification[] = rows.map((row) =>
            routeInputOf(row, devicesOf.get(row.account_id as string) ?? []),
          );
          const chunk = plan.decide(queued, decide);
          if (chunk.drops.length > 0) {
            await session.rows(
              `UPDATE notifications n SET status = 'dropped', reason = d.reason, routed_at = $3
               FROM unnest($1::text[], $2::text[]) AS d(id, reason) WHERE n.id = d.id`,
              [chunk.drops.map((d) => d.id), chunk.drops.map((d) => d.reason), now],
            );
          }
          const replaced = await replacedByNewer(session, chunk.destinations);
          const { placed, unleased } = plan.place(chunk.destinations, (d) => replaced.has(d));
          if (unleased.length > 0) {
            await session.rows(
              `UPDATE destinations d SET state = 'superseded', attempts = 0, lease_owner = NULL, lease_until = NULL,
                 updated_at = $3
               FROM unnest($1::text[], $2::text[]) AS u(notification_id, device_id)
               WHERE d.notification_id = u.notification_id AND d.device_id = u.device_id`,
              [unleased.map(idOf), unleased.map((d) => d.device.id), now],
            );
          }
          await insertDestinations(session, placed, lease, now);
          // A tagged send replaces the older ones of its tag still waiting on the device, whoever sent them.
          const replacing = placed.filter((d) => d.notification.tag !== null && d.state !== 'superseded');
          if (replacing.length > 0) {
            await session.rows(
              `UPDATE destinations d SET state = 'superseded', updated_at = $4
               FROM unnest($1::text[], $2::text[], $3::text[]) AS s(device_id, tag, notification_id)
               WHERE d.device_id = s.device_id AND d.tag = s.tag AND d.state = 'pending'
                 AND d.notification_id != s.notification_id`,
              [
                replacing.map((d) => d.device.id),
                replacing.map((d) => d.notification.tag),
                replacing.map(idOf),
                now,
              ],
            );
          }
          if (chunk.delivered.length > 0) {
            await session.rows('UPDATE notifications SET routed_at = $1 WHERE id = ANY($2)', [
              now,
              chunk.delivered,
            ]);
          }
          // Those left undecided stay queued, and unlocked when this transaction ends.
          await session.rows('DELETE FROM route_queue WHERE notification_id = ANY($1)', [
            rows.slice(0, chunk.decided).map((row) => row.id as string),
          ]);
          routed += chunk.decided;
          if (rows.length < wanted) break;
        }
        for (const claim of plan.claimed) {
          if (lease?.unreadFor.includes(claim.address.provider)) {
            claim.unread = Number(
              ((await session.row(unreadOfDevice('$1', '$2'), [claim.deviceId, claim.createdAt])) as Row).n,
            );
          }
        }
        return { routed, claimed: plan.claimed };
      });
    },
  };
}

/**
 * The tagged destinations a newer send of their tag already reached in the database (a send routed
 * late). Sends of one tag to one device are routed one at a time, in whichever worker: their locks
 * are taken first (see advisoryLocks), so no other worker routes that tag until this commits.
 */
async function replacedByNewer(
  db: Session,
  destinations: PlannedDestination[],
): Promise<Set<PlannedDestination>> {
  const tagged = destinations.filter((d) => d.notification.tag !== null);
  if (tagged.length === 0) return new Set();
  await db.simple(advisoryLocks(tagged.map((d) => `tag:${d.device.id}:${d.notification.tag}`)));
  const rows = await db.rows(
    `SELECT t.i FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS t(device_id, tag, created_at, i)
     WHERE EXISTS (SELECT 1 FROM destinations d
                   WHERE d.device_id = t.device_id AND d.tag = t.tag AND d.created_at > t.created_at)`,
    [
      tagged.map((d) => d.device.id),
      tagged.map((d) => d.notification.tag),
      tagged.map((d) => d.notification.input.notification.createdAt),
    ],
  );
  return new Set(rows.map((row) => tagged[Number(row.i) - 1] as PlannedDestination));
}

/** A chunk's destinations in one statement, each in its first state; `sending` ones under `lease`. */
async function insertDestinations(
  db: Session,
  placed: PlacedDestination[],
  lease: { owner: string; leaseMs: number } | undefined,
  now: number,
): Promise<void> {
  if (placed.length === 0) return;
  const leased = (d: PlacedDestination) => d.state === 'sending' && lease !== undefined;
  await db.rows(
    `INSERT INTO destinations (notification_id, device_id, platform, state, attempts, next_attempt_at,
       updated_at, push_id, tag, created_at, expires_at, lease_owner, lease_until)
     SELECT d.id, d.device_id, d.platform, d.state, CASE WHEN d.leased THEN 1 ELSE 0 END, $10, $10, d.push_id,
       d.tag, d.created_at, d.expires_at,
       CASE WHEN d.leased THEN $11 END, CASE WHEN d.leased THEN $12::bigint END
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
       $8::bigint[], $9::boolean[])
       AS d(id, device_id, platform, state, push_id, tag, created_at, expires_at, leased)`,
    [
      placed.map(idOf),
      placed.map((d) => d.device.id),
      placed.map((d) => d.device.platform),
      placed.map((d) => d.state),
      placed.map((d) => d.pushId),
      placed.map((d) => d.notification.tag),
      placed.map((d) => d.notification.input.notification.createdAt),
      placed.map((d) => d.notification.input.notification.expiresAt),
      placed.map(leased),
      now,
      lease?.owner ?? null,
      lease ? now + lease.leaseMs : null,
    ],
  );
}
