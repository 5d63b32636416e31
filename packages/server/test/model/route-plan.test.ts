import { describe, expect, it } from 'vitest';
import type { Device } from '../../src/model/devices.js';
import { decideChunk, FanOut, type PlannedDestination, RoutePlan } from '../../src/model/route-plan.js';
import type { QueuedNotification, RouteDecision, RouteInput } from '../../src/model/routing.js';

const device = (id: string) =>
  ({
    id,
    platform: 'ios',
    address: { provider: 'apns', key: `push-${id}`, data: null },
    createdAt: 0,
  }) as Device;
const PHONE = device('phone');
const WATCH = device('watch');

function queued(id: string, tag: string | null, devices: Device[] = [PHONE]): QueuedNotification {
  return {
    input: {
      notification: { id, target: 'auto', createdAt: 0, expiresAt: 1 },
      token: { revokedAt: null, expiresAt: null },
      devices,
    },
    tag,
    senderName: 'CI',
    notification: { message: id } as QueuedNotification['notification'],
  };
}

/** Every notification goes to all its devices, except those named `drop…`. */
const chunkOf = (notifications: QueuedNotification[], room?: number) =>
  decideChunk(
    notifications,
    (input): RouteDecision =>
      input.notification.id.startsWith('drop')
        ? { kind: 'drop', reason: 'no_matching_device' }
        : {
            kind: 'deliver',
            destinations: input.devices.map((d) => ({
              device: d,
              pushId: `${input.notification.id}-${d.id}`,
            })),
          },
    room,
  );

const never = () => false;
const states = (placed: { notification: QueuedNotification; device: Device; state: string }[]) =>
  placed.map((d) => `${d.notification.input.notification.id}/${d.device.id}:${d.state}`);
const claimedKeys = (plan: RoutePlan) => plan.claimed.map((c) => `${c.notificationId}/${c.deviceId}`);

describe('decideChunk', () => {
  it('keeps queue order, splitting drops from destinations', () => {
    const chunk = chunkOf([queued('a', null, [PHONE, WATCH]), queued('drop1', null), queued('b', 't')]);
    expect(chunk.drops).toEqual([{ id: 'drop1', reason: 'no_matching_device' }]);
    expect(chunk.delivered).toEqual(['a', 'b']);
    expect(chunk.destinations.map((d) => `${d.notification.input.notification.id}/${d.device.id}`)).toEqual([
      'a/phone',
      'a/watch',
      'b/phone',
    ]);
    expect(chunk.decided).toBe(3);
  });

  it('decides no further than its destinations fill the room: the last may overrun it, a drop takes none', () => {
    const chunk = chunkOf(
      [queued('drop1', null), queued('a', null, [PHONE, WATCH]), queued('drop2', null), queued('b', null)],
      2,
    );
    expect([chunk.decided, chunk.delivered, chunk.drops.map((d) => d.id)]).toEqual([2, ['a'], ['drop1']]);
    const overrun = chunkOf([queued('a', null), queued('b', null, [PHONE, WATCH]), queued('c', null)], 2);
    expect([overrun.decided, overrun.delivered, overrun.destinations.length]).toEqual([2, ['a', 'b'], 3]);
    expect(chunkOf([queued('a', null)], 0).decided).toBe(0);
  });
});

describe('RoutePlan', () => {
  it('leases the first destinations in queue order, tagged or not, and leaves the rest pending', () => {
    const plan = new RoutePlan(3);
    const { placed } = plan.place(
      chunkOf([queued('a', 'deploy', [PHONE, WATCH]), queued('b', null, [PHONE, WATCH])]).destinations,
      never,
    );
    expect(states(placed)).toEqual([
      'a/phone:sending',
      'a/watch:sending',
      'b/phone:sending',
      'b/watch:pending',
    ]);
    expect(claimedKeys(plan)).toEqual(['a/phone', 'a/watch', 'b/phone']);
    expect(plan.claimed[0]).toMatchObject({ pushId: 'a-phone', attempt: 1, address: { key: 'push-phone' } });
    expect([plan.room, plan.wantsMore]).toEqual([0, false]);
  });

  it('reads no more queued sends than the lease has room for; without a lease, all wanted', () => {
    const plan = new RoutePlan(4);
    expect(plan.chunkSize(200)).toBe(4);
    plan.place(chunkOf([queued('a', null)]).destinations, never);
    expect([plan.chunkSize(200), plan.chunkSize(2)]).toEqual([3, 2]);
    const unleased = new RoutePlan(0);
    expect([unleased.chunkSize(200), unleased.wantsMore]).toEqual([200, true]);
    expect(states(unleased.place(chunkOf([queued('a', null)]).destinations, never).placed)).toEqual([
      'a/phone:pending',
    ]);
  });

  it("reads as many queued sends as fill the room at the recent sends' fan-out, kept across calls", () => {
    const fanOut = new FanOut();
    const first = new RoutePlan(7, fanOut);
    expect(first.chunkSize(200)).toBe(7);
    const decide = (input: RouteInput): RouteDecision => ({
      kind: 'deliver',
      destinations: input.devices.map((d) => ({ device: d, pushId: `${input.notification.id}-${d.id}` })),
    });
    // Two devices a send: the chunk of 7 is decided only as far as the room, four sends.
    const chunk = first.decide(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => queued(id, null, [PHONE, WATCH])),
      decide,
    );
    expect([chunk.decided, chunk.destinations.length]).toEqual([4, 8]);
    expect(fanOut.perSend).toBe(2);
    // The next call reads half its room.
    expect(new RoutePlan(7, fanOut).chunkSize(200)).toBe(4);
    expect(new RoutePlan(0, fanOut).chunkSize(200)).toBe(200);
  });

  it('gives a place back when a newer send of the tag supersedes a leased one in the same chunk', () => {
    const plan = new RoutePlan(2);
    const { placed, unleased } = plan.place(
      chunkOf([queued('a', 'build'), queued('b', 'build'), queued('c', null)]).destinations,
      never,
    );
    expect(states(placed)).toEqual(['a/phone:superseded', 'b/phone:sending', 'c/phone:sending']);
    expect(unleased).toEqual([]);
    expect(claimedKeys(plan)).toEqual(['b/phone', 'c/phone']);
  });

  it('names a destination leased by an earlier chunk that a newer send of its tag supersedes', () => {
    const plan = new RoutePlan(2);
    const first = plan.place(chunkOf([queued('a', 'build')]).destinations, never);
    const second = plan.place(chunkOf([queued('b', 'build')]).destinations, never);
    expect(states(first.placed)).toEqual(['a/phone:superseded']);
    expect(states(second.placed)).toEqual(['b/phone:sending']);
    expect(states(second.unleased)).toEqual(['a/phone:superseded']);
    expect(claimedKeys(plan)).toEqual(['b/phone']);
  });

  it('writes a send routed late superseded, without a lease, and lets it supersede nothing', () => {
    const plan = new RoutePlan(2);
    const late = (d: PlannedDestination) => d.notification.input.notification.id === 'b';
    const { placed } = plan.place(chunkOf([queued('a', 'build'), queued('b', 'build')]).destinations, late);
    expect(states(placed)).toEqual(['a/phone:sending', 'b/phone:superseded']);
    expect(claimedKeys(plan)).toEqual(['a/phone']);
  });

  it('keeps tags apart by device and by name', () => {
    const plan = new RoutePlan(0);
    const { placed } = plan.place(
      chunkOf([queued('a', 'build', [PHONE, WATCH]), queued('b', 'build', [WATCH]), queued('c', 'deploy')])
        .destinations,
      never,
    );
    expect(states(placed)).toEqual([
      'a/phone:pending',
      'a/watch:superseded',
      'b/watch:pending',
      'c/phone:pending',
    ]);
  });
});
