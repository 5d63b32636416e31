import type { Device } from '../../model/devices.js';
import { FanOut, type PlacedDestination, RoutePlan } from '../../model/route-plan.js';
import type { QueuedNotification } from '../../model/routing.js';
import { unreadOfDevice } from '../queries.js';
import { deviceOf, type Row, routeInputOf } from '../rows.js';
import type { RoutingPart } from '../store.js';
import type { SqliteConnection } from './connection.js';

/** The devices sends may reach (and a send token may list), oldest first. */
function activeDevices(db: SqliteConnection, accountId: string): Device[] {
  return db
    .all('SELECT * FROM devices WHERE account_id = ? AND active = 1 ORDER BY created_at, rowid', accountId)
    .map(deviceOf);
}

/** `leasing` is told of a lease's owner before it takes its first. */
export function sqliteRouting(db: SqliteConnection, leasing: (owner: string) => void): RoutingPart {
  const insert = (
    d: PlacedDestination,
    lease: { owner: string; leaseMs: number } | undefined,
    now: number,
  ) => {
    const { id, createdAt, expiresAt } = d.notification.input.notification;
    const leased = d.state === 'sending' ? lease : undefined;
    db.run(
      `INSERT INTO destinations (notification_id, device_id, platform, state, attempts, next_attempt_at,
         updated_at, push_id, tag, created_at, expires_at, lease_owner, lease_until)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      d.device.id,
      d.device.platform,
      d.state,
      leased ? 1 : 0,
      now,
      now,
      d.pushId,
      d.notification.tag,
      createdAt,
      expiresAt,
      leased?.owner ?? null,
      leased ? now + leased.leaseMs : null,
    );
  };

  const fanOut = new FanOut();
  return {
    async routeQueued({ now, limit, decide, lease }) {
      if (lease) leasing(lease.owner);
      return db.transaction(() => {
        const plan = new RoutePlan(lease?.limit ?? 0, fanOut);
        const devicesOf = new Map<string, Device[]>();
        const devicesFor = (accountId: string) => {
          let devices = devicesOf.get(accountId);
          if (!devices) {
            devices = activeDevices(db, accountId);
            devicesOf.set(accountId, devices);
          }
          return devices;
        };
        let routed = 0;
        while (routed < limit && plan.wantsMore) {
          const wanted = plan.chunkSize(limit - routed);
          const queued: QueuedNotification[] = db
            .all(
              `SELECT n.id, n.account_id, n.payload, n.sender_name, n.created_at, n.expires_at,
                 t.revoked_at AS token_revoked_at, t.expires_at AS token_expires_at
               FROM notifications n INDEXED BY notifications_queued
               JOIN tokens t ON t.id = n.token_id
               WHERE n.routed_at IS NULL AND n.created_at <= ? ORDER BY n.created_at, n.id LIMIT ?`,
              now,
              wanted,
            )
            .map((row) => routeInputOf(row, devicesFor(row.account_id as string)));
          const chunk = plan.decide(queued, decide);
          for (const { id, reason } of chunk.drops) {
            db.run(
              `UPDATE notifications SET status = 'dropped', reason = ?, routed_at = ? WHERE id = ?`,
              reason,
              now,
              id,
            );
          }
          // A send routed late must not replace a newer one of its tag: it is superseded at once.
          const { placed, unleased } = plan.place(
            chunk.destinations,
            (d) =>
              db.get(
                'SELECT 1 FROM destinations WHERE device_id = ? AND tag = ? AND created_at > ? LIMIT 1',
                d.device.id,
                d.notification.tag,
                d.notification.input.notification.createdAt,
              ) !== undefined,
          );
          for (const older of unleased) {
            db.run(
              `UPDATE destinations SET state = 'superseded', attempts = 0, lease_owner = NULL, lease_until = NULL,
                 updated_at = ? WHERE notification_id = ? AND device_id = ?`,
              now,
              older.notification.input.notification.id,
              older.device.id,
            );
          }
          for (const d of placed) {
            // A tagged send replaces the older ones of its tag still waiting on the device, whoever sent them.
            if (d.notification.tag !== null && d.state !== 'superseded') {
              db.run(
                `UPDATE destinations SET state = 'superseded', updated_at = ?
                 WHERE device_id = ? AND tag = ? AND state = 'pending' AND notification_id != ?`,
                now,
                d.device.id,
                d.notification.tag,
                d.notification.input.notification.id,
              );
            }
            insert(d, lease, now);
          }
          for (const id of chunk.delivered)
            db.run('UPDATE notifications SET routed_at = ? WHERE id = ?', now, id);
          routed += chunk.decided;
          if (queued.length < wanted) break;
        }
        for (const claim of plan.claimed) {
          if (lease?.unreadFor.includes(claim.address.provider)) {
            claim.unread = Number(
              (db.get(unreadOfDevice('?', '?'), claim.deviceId, claim.createdAt) as Row).n,
            );
          }
        }
        return { routed, claimed: plan.claimed };
      });
    },
  };
}
