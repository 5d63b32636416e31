import type { DropReason } from '@foxbell/sdk/contract';
import type { Device } from './devices.js';
import type { ClaimedDestination } from './leases.js';
import type { QueuedNotification, RouteDecision, RouteInput } from './routing.js';

/** A destination routing decided on, before it is written. */
export interface PlannedDestination {
  notification: QueuedNotification;
  device: Device;
  pushId: string;
}

/** A destination as it is written: its first state, and its claim when it is leased at once. */
export interface PlacedDestination extends PlannedDestination {
  state: 'pending' | 'sending' | 'superseded';
  claim: ClaimedDestination | undefined;
}

/** What `decide` made of a chunk of the queue. */
export interface DecidedChunk {
  /** How many of the chunk's notifications were decided, from its first: the rest stay queued. */
  decided: number;
  drops: { id: string; reason: DropReason }[];
  /** The notifications that got destinations, in queue order. */
  delivered: string[];
  /** Their destinations, in queue order. */
  destinations: PlannedDestination[];
}

/**
 * Runs `decide` on each queued notification of a chunk, in queue order, until its destinations
 * fill `room` (the last may overrun it by its other devices). Routing further ahead would write
 * destinations that no lease is left for, and each would then be claimed again on its own: a
 * second write of every destination, which cost delivery about a sixth of its time.
 */
export function decideChunk(
  queued: QueuedNotification[],
  decide: (input: RouteInput) => RouteDecision,
  room = Number.POSITIVE_INFINITY,
): DecidedChunk {
  const chunk: DecidedChunk = { decided: 0, drops: [], delivered: [], destinations: [] };
  for (const notification of queued) {
    if (chunk.destinations.length >= room) break;
    chunk.decided += 1;
    const decision = decide(notification.input);
    const { id } = notification.input.notification;
    if (decision.kind === 'drop') {
      chunk.drops.push({ id, reason: decision.reason });
      continue;
    }
    chunk.delivered.push(id);
    for (const { device, pushId } of decision.destinations) {
      chunk.destinations.push({ notification, device, pushId });
    }
  }
  return chunk;
}

const tagKey = (d: PlannedDestination) => `${d.device.id} ${d.notification.tag}`;

/**
 * How many destinations a routed send has made lately, kept by a store's routing across calls: a
 * lease's room of 125 is 13 sends to an account of ten devices, and reading 125 (each parsed)
 * to route 13 cost routing more than it saved.
 */
export class FanOut {
  #sends = 0;
  #destinations = 0;

  /** Destinations per delivered send lately; 1 before any. */
  get perSend(): number {
    return this.#sends === 0 ? 1 : Math.max(1, this.#destinations / this.#sends);
  }

  observe(chunk: DecidedChunk): void {
    this.#sends += chunk.delivered.length;
    this.#destinations += chunk.destinations.length;
    // Lately: what the queue holds now counts more than what it held a thousand sends ago.
    if (this.#sends > 1000) {
      this.#sends /= 2;
      this.#destinations /= 2;
    }
  }
}

/**
 * One routing call's order, the same in both stores: the queue is read oldest send first, a chunk
 * at a time, and the lease goes to the call's destinations in that same order, whatever their tag:
 * the oldest waiting send is pushed first. A tagged destination that a newer send of its tag
 * replaces in the same call gives its place back, to be taken by the next one in line.
 *
 * (The PostgreSQL store used to lease untagged destinations first, since it writes them in one
 * statement; that let a stream of untagged sends hold back an older tagged one. Order is what a
 * person watching the phone sees, so it wins; the writes stay batched, as `place` decides the
 * states before anything is written.)
 */
export class RoutePlan {
  readonly #leaseLimit: number;
  readonly #claimed: ClaimedDestination[] = [];
  /** The newest surviving destination of each device and tag placed in this call. */
  readonly #latestTagged = new Map<string, PlacedDestination>();

  readonly #fanOut: FanOut;

  /** `leaseLimit`: destinations this call may lease at most (0: none). */
  constructor(leaseLimit: number, fanOut = new FanOut()) {
    this.#leaseLimit = leaseLimit;
    this.#fanOut = fanOut;
  }

  /** Leases still free. */
  get room(): number {
    return this.#leaseLimit - this.#claimed.length;
  }

  /**
   * Queued notifications to read next: with a lease, about as many as fill its room at the sends'
   * recent fan-out (fewer only cost another read); without one, all that are wanted.
   */
  chunkSize(wanted: number): number {
    return this.#leaseLimit > 0 ? Math.min(wanted, Math.ceil(this.room / this.#fanOut.perSend)) : wanted;
  }

  /** Decides a chunk read from the queue as far as the lease's room (see decideChunk). */
  decide(queued: QueuedNotification[], decide: (input: RouteInput) => RouteDecision): DecidedChunk {
    const chunk = decideChunk(queued, decide, this.#leaseLimit > 0 ? this.room : Number.POSITIVE_INFINITY);
    this.#fanOut.observe(chunk);
    return chunk;
  }

  /** Whether routing should read another chunk: without a lease always, with one while it has room. */
  get wantsMore(): boolean {
    return this.#leaseLimit === 0 || this.room > 0;
  }

  /**
   * Decides the first state of a chunk's destinations, in queue order. `replaced` says whether a
   * newer send of a destination's tag already reached its device in the database (a send routed
   * late): such a destination is written superseded. Returns the chunk's destinations with their
   * states, and the destinations leased by an earlier chunk of this call that a newer one of their
   * tag superseded: the store writes those superseded, uncounted.
   */
  place(
    destinations: PlannedDestination[],
    replaced: (d: PlannedDestination) => boolean,
  ): { placed: PlacedDestination[]; unleased: PlacedDestination[] } {
    const placed: PlacedDestination[] = [];
    const unleased: PlacedDestination[] = [];
    for (const planned of destinations) {
      const tagged = planned.notification.tag !== null;
      if (tagged && replaced(planned)) {
        placed.push({ ...planned, state: 'superseded', claim: undefined });
        continue;
      }
      if (tagged) {
        const older = this.#latestTagged.get(tagKey(planned));
        if (older) this.#supersede(older, placed.includes(older) ? undefined : unleased);
      }
      const claim =
        this.room > 0 ? claimedAtRouting(planned.notification, planned.device, planned.pushId) : undefined;
      if (claim) this.#claimed.push(claim);
      const destination: PlacedDestination = { ...planned, state: claim ? 'sending' : 'pending', claim };
      placed.push(destination);
      if (tagged) this.#latestTagged.set(tagKey(planned), destination);
    }
    return { placed, unleased };
  }

  /** The destinations leased, in queue order. */
  get claimed(): ClaimedDestination[] {
    return this.#claimed;
  }

  /**
   * An older destination of a tag gives way to a newer one. One not yet written is simply written
   * superseded; one written earlier in this call is superseded by the store's own statement, for
   * pending ones the tag's, for leased ones (listed in `written`) one of their own.
   */
  #supersede(older: PlacedDestination, written: PlacedDestination[] | undefined): void {
    if (older.claim) {
      this.#claimed.splice(this.#claimed.indexOf(older.claim), 1);
      if (written) written.push(older);
    }
    older.state = 'superseded';
    older.claim = undefined;
  }
}

/** A destination leased as it is routed: its first attempt, from what routing already holds. */
export function claimedAtRouting(
  queued: QueuedNotification,
  device: Device,
  pushId: string,
): ClaimedDestination {
  const { id, createdAt, expiresAt } = queued.input.notification;
  return {
    notificationId: id,
    deviceId: device.id,
    platform: device.platform,
    address: device.address,
    addressSince: device.addressSince,
    pushId,
    // Where the device's provider asks for one, the count is read by the store, which leased it.
    unread: null,
    attempt: 1,
    senderName: queued.senderName,
    notification: queued.notification,
    createdAt,
    expiresAt,
  };
}
