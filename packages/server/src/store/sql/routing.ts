import type { Device } from '../../model/devices.js';
import { FanOut, type PlannedDestination, RoutePlan } from '../../model/route-plan.js';
import { UNREAD_OF_DEVICE } from '../queries.js';
import { deviceOf, routeInputOf } from '../rows.js';
import type { RoutingPart } from '../store.js';
import { all, count, type Dialect, overRows, rowsStatement } from './plan.js';

const idOf = (d: PlannedDestination) => d.notification.input.notification.id;

/** A queued notification as routing reads it (see routeInputOf). */
const QUEUED = `n.id, n.account_id, n.payload, n.sender_name, n.created_at, n.expires_at,
  t.revoked_at AS token_revoked_at, t.expires_at AS token_expires_at`;

/** Queued notifications into destinations. `leasing` is told of a lease's owner before it takes its first. */
export function routing(d: Dialect, leasing?: (owner: string) => void): RoutingPart {
  const takeQueued = d.takeQueued(QUEUED);
  // The devices sends may reach, oldest first.
  const devicesOfAccounts = `SELECT * FROM devices WHERE account_id ${d.inList('$1')} AND active = ${d.true}
    ORDER BY created_at, ${d.madeOrder}`;
  const drop = rowsStatement(
    d,
    'x(id text, reason text)',
    `UPDATE notifications SET status = 'dropped', reason = x.reason, routed_at = $1
     FROM $rows WHERE notifications.id = x.id`,
  );
  const supersedeUnleased = rowsStatement(
    d,
    'k(notification_id text, device_id text)',
    `UPDATE destinations SET state = 'superseded', attempts = 0, lease_owner = NULL, lease_until = NULL,
       updated_at = $1
     FROM $rows
     WHERE destinations.notification_id = k.notification_id AND destinations.device_id = k.device_id`,
  );
  const insertDestinations = rowsStatement(
    d,
    `p(id text, device_id text, platform text, state text, attempts int, push_id text, tag text,
       created_at bigint, expires_at bigint, lease_owner text, lease_until bigint)`,
    `INSERT INTO destinations (notification_id, device_id, platform, state, attempts, next_attempt_at,
       updated_at, push_id, tag, created_at, expires_at, lease_owner, lease_until)
     SELECT p.id, p.device_id, p.platform, p.state, p.attempts, $1, $1, p.push_id, p.tag, p.created_at,
       p.expires_at, p.lease_owner, p.lease_until
     FROM $rows`,
  );
  const supersedeOlder = rowsStatement(
    d,
    's(device_id text, tag text, notification_id text)',
    `UPDATE destinations SET state = 'superseded', updated_at = $1
     FROM $rows
     WHERE destinations.device_id = s.device_id AND destinations.tag = s.tag
       AND destinations.state = 'pending' AND destinations.notification_id != s.notification_id`,
  );
  const markRouted = `UPDATE notifications SET routed_at = $1 WHERE id ${d.inList('$2')}`;
  const newerOfTag = rowsStatement(
    d,
    't(i int, device_id text, tag text, created_at bigint)',
    `SELECT t.i FROM $rows
     WHERE EXISTS (SELECT 1 FROM destinations n
                   WHERE n.device_id = t.device_id AND n.tag = t.tag AND n.created_at > t.created_at)`,
  );

  /**
   * The tagged destinations a newer send of their tag already reached in the database (a send
   * routed late). Sends of one tag to one device are routed one at a time, in whichever worker:
   * their locks are taken first (see Dialect.lock), so no other worker routes that tag until this
   * commits.
   */
  function* replacedByNewer(destinations: PlannedDestination[]) {
    const tagged = destinations.filter((p) => p.notification.tag !== null);
    if (tagged.length === 0) return new Set<PlannedDestination>();
    yield* d.lock(tagged.map((p) => `tag:${p.device.id}:${p.notification.tag}`));
    const newer = yield* overRows(
      newerOfTag,
      tagged.map((p, i) => [i, p.device.id, p.notification.tag, p.notification.input.notification.createdAt]),
    );
    return new Set(newer.map((row) => tagged[Number(row.i)] as PlannedDestination));
  }

  const fanOut = new FanOut();
  return {
    async routeQueued({ now, limit, decide, lease }) {
      if (lease) leasing?.(lease.owner);
      return d.writeUnsynced(function* () {
        const plan = new RoutePlan(lease?.limit ?? 0, fanOut);
        const devicesOf = new Map<string, Device[]>();
        let routed = 0;
        while (routed < limit && plan.wantsMore) {
          const wanted = plan.chunkSize(limit - routed);
          const rows = yield* all(takeQueued, now, wanted);
          if (rows.length === 0) break;
          const unknown = [...new Set(rows.map((row) => row.account_id as string))].filter(
            (id) => !devicesOf.has(id),
          );
          if (unknown.length > 0) {
            for (const id of unknown) devicesOf.set(id, []);
            for (const row of yield* all(devicesOfAccounts, d.list(unknown))) {
              devicesOf.get(row.account_id as string)?.push(deviceOf(row));
            }
          }
          const queued = rows.map((row) => routeInputOf(row, devicesOf.get(row.account_id as string) ?? []));
          const chunk = plan.decide(queued, decide);
          yield* overRows(
            drop,
            chunk.drops.map((dropped) => [dropped.id, dropped.reason]),
            now,
          );
          // A send routed late must not replace a newer one of its tag: it is superseded at once.
          const replaced = yield* replacedByNewer(chunk.destinations);
          const { placed, unleased } = plan.place(chunk.destinations, (p) => replaced.has(p));
          yield* overRows(
            supersedeUnleased,
            unleased.map((p) => [idOf(p), p.device.id]),
            now,
          );
          // Each in its first state; `sending` ones leased, their first attempt counted.
          yield* overRows(
            insertDestinations,
            placed.map((p) => {
              const leased = p.state === 'sending' ? lease : undefined;
              const { createdAt, expiresAt } = p.notification.input.notification;
              return [
                idOf(p),
                p.device.id,
                p.device.platform,
                p.state,
                leased ? 1 : 0,
                p.pushId,
                p.notification.tag,
                createdAt,
                expiresAt,
                leased?.owner ?? null,
                leased ? now + leased.leaseMs : null,
              ];
            }),
            now,
          );
          // A tagged send replaces the older ones of its tag still waiting on the device, whoever sent them.
          yield* overRows(
            supersedeOlder,
            placed
              .filter((p) => p.notification.tag !== null && p.state !== 'superseded')
              .map((p) => [p.device.id, p.notification.tag, idOf(p)]),
            now,
          );
          if (chunk.delivered.length > 0) yield* all(markRouted, now, d.list(chunk.delivered));
          // Those left undecided stay queued.
          yield* d.leaveQueue(rows.slice(0, chunk.decided).map((row) => row.id as string));
          routed += chunk.decided;
          if (rows.length < wanted) break;
        }
        for (const claim of plan.claimed) {
          if (lease?.unreadFor.includes(claim.address.provider)) {
            claim.unread = yield* count(UNREAD_OF_DEVICE, claim.deviceId, claim.createdAt);
          }
        }
        return { routed, claimed: plan.claimed };
      });
    },
  };
}
