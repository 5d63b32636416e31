import { randomUUID } from 'node:crypto';
import type { PushFailureReason } from '@foxbell/sdk/contract';
import type { Clock } from '../kernel/clock.js';
import { randomBase62 } from '../kernel/ids.js';
import { TurnBatcher } from '../kernel/turn-batcher.js';
import type {
  AttemptEnd,
  ClaimedDestination,
  EndedDestination,
  FinishedAttempt,
  RecordedEnds,
} from '../model/leases.js';
import { routeNotification } from '../model/routing.js';
import { isStorageUnavailable } from '../store/storage-errors.js';
import type { Store } from '../store/store.js';
import { DEFAULT_LEASE_MS, endOfAttempt, MAX_ATTEMPTS } from './attempts.js';
import { NO_RESPONSE, type PushOutcome, type PushTransport } from './transport.js';

export interface DeliveryLog {
  error(message: string, details?: Record<string, unknown>): void;
  /** A push that will not arrive, and a device its push service made inactive: the operator's to read. */
  warn(message: string, details?: Record<string, unknown>): void;
  info?(message: string, details?: Record<string, unknown>): void;
}

export interface DeliveryWorkerOptions {
  store: Store;
  /**
   * What the worker pushes through, by provider (it does not close them): each destination goes
   * to its address's provider's transport.
   */
  transports: Readonly<Record<string, PushTransport>>;
  /** The providers whose pushes carry their device's unread count. */
  unreadFor?: readonly string[];
  clock: Clock;
  /** Pushes in flight at most. */
  concurrency: number;
  /**
   * How long a lease lasts between renewals: the worker extends the leases of its pushes in flight
   * every third of it, so a worker that died (or is stuck) loses them within this time.
   */
  leaseMs?: number;
  /** How often to look for due work when nothing wakes the worker sooner. */
  pollMs?: number;
  /** How long a provider's pushes stop after its push service rejects the credential itself. */
  credentialPauseMs?: number;
  newPushId?: () => string;
  log?: DeliveryLog;
  /** Told of each push's response, when the process serves metrics. */
  metrics?: PushMetrics;
}

export interface PushMetrics {
  /** A push's response (its HTTP status, or undefined when none came) after `seconds`. */
  pushed(provider: string, status: number | undefined, seconds: number): void;
  /** A destination that will not arrive (failed for good, or expired), and why. */
  failed(provider: string, reason: PushFailureReason): void;
}

/** An attempt's end waiting to be recorded, with what its log line says if it fails for good. */
interface Ending {
  attempt: FinishedAttempt;
  provider: string;
  /** What the push service made of the push; none when the destination ended unpushed. */
  outcome?: PushOutcome | undefined;
}

const ROUTE_BATCH = 200;

/**
 * Moves notifications from the queue to devices: routes queued notifications, leases due
 * destinations, pushes them concurrently, and records how each attempt ended. Any number of
 * workers, in any number of processes, can share one store: a destination is pushed only by the
 * worker holding its lease, and a lease that runs out (its worker died) is taken over.
 */
export class DeliveryWorker {
  readonly owner = `wrk_${randomBase62(12)}`;
  readonly #options: Required<Omit<DeliveryWorkerOptions, 'log' | 'metrics'>> & {
    log: DeliveryLog | undefined;
    metrics: PushMetrics | undefined;
  };
  /** Pushes sent whose response has not come yet. */
  #inFlight = 0;
  /** Resolved when the last push in flight has its response. */
  #whenNoneInFlight: (() => void)[] = [];
  /** The responses read in one turn of the loop, recorded in one transaction, one at a time. */
  readonly #recorder: TurnBatcher<Ending, undefined>;
  #running = false;
  /** False from a failure to reach the database until a step goes through again. */
  #storeReachable = true;
  #loop: Promise<void> | undefined;
  #wake: ((reason: 'queued' | 'finished' | 'stop') => void) | undefined;
  /** When each paused provider's pushes may go on (its push service rejected our credential). */
  readonly #pausedUntil = new Map<string, number>();
  /** Destinations being pushed, for renewing their leases, and releasing them if a stop runs out of time. */
  readonly #claimed = new Set<ClaimedDestination>();
  /** When (by the clock) the leases in flight were last extended, or none were held. */
  #renewedAt = Number.NEGATIVE_INFINITY;
  #renewing: Promise<void> | undefined;
  #renewTimer: NodeJS.Timeout | undefined;

  constructor(options: DeliveryWorkerOptions) {
    this.#options = {
      leaseMs: DEFAULT_LEASE_MS,
      pollMs: 250,
      credentialPauseMs: 60_000,
      newPushId: randomUUID,
      unreadFor: [],
      ...options,
      log: options.log,
      metrics: options.metrics,
    };
    this.#recorder = new TurnBatcher(async (endings) => {
      try {
        const recorded = await this.#options.store.finishAttempts(
          endings.map((ending) => ending.attempt),
          this.#options.clock.now(),
        );
        this.#tell(endings, recorded);
      } catch (error) {
        this.#storeFailed('recording attempts', error);
      }
      return endings.map(() => undefined);
    });
  }

  /**
   * A store call failed. The database being out of reach (a restart, a failover) is said once when
   * it begins, not on every poll of the outage; any other failure, each time.
   */
  #storeFailed(what: string, error: unknown): void {
    if (!isStorageUnavailable(error)) {
      this.#options.log?.error(`${what} failed`, { error: String(error) });
      return;
    }
    if (!this.#storeReachable) return;
    this.#storeReachable = false;
    this.#options.log?.error('the database cannot be reached: delivery waits for it, looking every poll', {
      during: what,
      error: String(error),
    });
  }

  /** A delivery step went through: if the database was out of reach, say it is back, once. */
  #storeReachableAgain(): void {
    if (this.#storeReachable) return;
    this.#storeReachable = true;
    this.#options.log?.info?.('the database responds again: delivery goes on');
  }

  /** Starts the background loop. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
    // Apart from the loop, which waits for a whole stop's grace while pushes are still out.
    this.#renewTimer = setInterval(() => void this.#renewIfDue(), this.#options.leaseMs / 6);
    this.#renewTimer.unref();
  }

  /** Something was queued: look now rather than at the next poll. */
  poke(): void {
    this.#wake?.('queued');
  }

  /**
   * One pass: routes what is queued, claims what is due, and resolves once every push this
   * worker has in flight is recorded. Tests drive delivery with it and a manual clock.
   */
  async tick(): Promise<void> {
    await this.#step();
    await this.idle();
  }

  /** Resolves once no push is in flight and every finished one is recorded. */
  async idle(): Promise<void> {
    do {
      if (this.#inFlight > 0) await new Promise<void>((resolve) => this.#whenNoneInFlight.push(resolve));
      await this.#recorder.idle();
    } while (this.#inFlight > 0);
  }

  /**
   * Stops claiming, waits up to `graceMs` for pushes in flight, and hands the ones still out back
   * to the queue (uncounted), so another worker takes them at once instead of after the lease.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.#running = false;
    this.#wake?.('stop');
    await this.#loop;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const outcome = await Promise.race([this.idle().then(() => 'done' as const), timedOut]);
    clearTimeout(timer);
    clearInterval(this.#renewTimer);
    await this.#renewing;
    if (outcome === 'timeout') {
      const now = this.#options.clock.now();
      const released = [...this.#claimed].map(
        (d): FinishedAttempt => ({
          notificationId: d.notificationId,
          deviceId: d.deviceId,
          owner: this.owner,
          end: { kind: 'released' },
        }),
      );
      this.#claimed.clear();
      await this.#options.store.finishAttempts(released, now);
      // Responses read before the release are still being recorded: nothing is written after stop.
      await this.#recorder.idle();
    }
  }

  async #run(): Promise<void> {
    // Claiming is a transaction: wait for a batch's worth of room rather than claiming one
    // destination per finished push. Idle, the poll timer still finds work that fell due.
    const batchRoom = Math.max(1, Math.floor(this.#options.concurrency / 4));
    const room = () => this.#options.concurrency - this.#inFlight;
    while (this.#running) {
      let progress = 0;
      try {
        progress = await this.#step();
        this.#storeReachableAgain();
      } catch (error) {
        this.#storeFailed('a delivery step', error);
      }
      if (!this.#running) break;
      if (progress === 0 || room() < batchRoom) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#options.pollMs);
          this.#wake = (reason) => {
            // A finished push matters only if the last pass left due work behind for want of room.
            if (reason === 'finished' && (progress === 0 || room() < batchRoom)) return;
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
      }
    }
  }

  /**
   * Claims what is due (retries, and leases that ran out) first, then routes queued notifications
   * into the room left, leasing their destinations as it makes them. Returns how much it did:
   * destinations claimed plus notifications routed (a routed send may have been dropped).
   */
  async #step(): Promise<number> {
    const { store, clock, concurrency, leaseMs, newPushId } = this.#options;
    const now = clock.now();
    const room = () => concurrency - this.#inFlight;
    // Before claiming: a lease of this worker's that ran out for want of a renewal would be claimed again.
    await this.#renewIfDue();
    if (room() <= 0) return 0;
    const { unreadFor } = this.#options;
    const { claimed: due, ended } = await store.claimDestinations({
      owner: this.owner,
      now,
      leaseMs,
      limit: room(),
      maxAttempts: MAX_ATTEMPTS,
      unreadFor,
    });
    for (const destination of ended) this.#tellEnded(destination);
    for (const destination of due) this.#push(destination);
    if (room() <= 0) return due.length;
    const { routed, claimed } = await store.routeQueued({
      now,
      limit: ROUTE_BATCH,
      decide: (input) => routeNotification(input, now, newPushId),
      lease: { owner: this.owner, leaseMs, limit: room(), unreadFor },
    });
    for (const destination of claimed) this.#push(destination);
    return due.length + routed;
  }

  /**
   * Extends the leases of the pushes in flight, once a third of a lease has passed since the last
   * time: a slow push keeps its lease however long it takes, and is never pushed twice for it.
   */
  #renewIfDue(): Promise<void> {
    if (this.#renewing) return this.#renewing;
    const { store, clock, leaseMs } = this.#options;
    const now = clock.now();
    // With nothing in flight, every lease taken from now on is fresh.
    if (this.#claimed.size === 0) this.#renewedAt = now;
    if (now - this.#renewedAt < leaseMs / 3) return Promise.resolve();
    this.#renewedAt = now;
    this.#renewing = store
      .renewLeases({
        owner: this.owner,
        until: now + leaseMs,
        destinations: [...this.#claimed].map(({ notificationId, deviceId }) => ({
          notificationId,
          deviceId,
        })),
      })
      .then(
        () => undefined,
        (error: unknown) => this.#storeFailed('renewing leases', error),
      )
      .finally(() => {
        this.#renewing = undefined;
      });
    return this.#renewing;
  }

  #push(destination: ClaimedDestination): void {
    const { provider } = destination.address;
    const pausedUntil = this.#pausedUntil.get(provider) ?? 0;
    const now = this.#options.clock.now();
    if (now < pausedUntil) {
      // Its provider is paused: back to wait for the pause's end, uncounted; the others go on.
      this.#claimed.add(destination);
      this.#inFlight += 1;
      this.#settle(destination, { kind: 'released', notBefore: pausedUntil });
      return;
    }
    const transport = this.#options.transports[provider];
    this.#claimed.add(destination);
    this.#inFlight += 1;
    if (transport === undefined) {
      // A device of a provider this process no longer has: nothing can ever reach it from here,
      // as if its push service were off the allowlist.
      this.#options.log?.error('a destination of a provider this process has no transport for', { provider });
      this.#settle(destination, {
        kind: 'failed_permanent',
        pushStatus: null,
        reason: 'not_allowed',
        deactivateDevice: null,
      });
      return;
    }
    const sent = performance.now();
    transport.push(destination).then(
      (outcome) => this.#recordOutcome(destination, outcome, sent),
      (error: unknown) => {
        // A transport's push does not reject; one that did is a push without a response.
        this.#options.log?.error('a push failed', { error: String(error) });
        this.#recordOutcome(destination, NO_RESPONSE, sent);
      },
    );
  }

  /** The providers whose push service rejected our credential lately: their pushes wait. */
  get pausedProviders(): string[] {
    const now = this.#options.clock.now();
    return [...this.#pausedUntil].filter(([, until]) => now < until).map(([provider]) => provider);
  }

  /** A destination ended without a push (its provider paused, or gone), recorded as a push's end. */
  #settle(destination: ClaimedDestination, end: AttemptEnd): void {
    queueMicrotask(() => {
      try {
        if (this.#claimed.delete(destination)) {
          void this.#recorder.add({
            attempt: {
              notificationId: destination.notificationId,
              deviceId: destination.deviceId,
              owner: this.owner,
              end,
            },
            provider: destination.address.provider,
          });
        }
      } finally {
        this.#inFlight -= 1;
        if (this.#inFlight === 0) for (const resolve of this.#whenNoneInFlight.splice(0)) resolve();
      }
    });
  }

  #recordOutcome(destination: ClaimedDestination, outcome: PushOutcome, sent: number): void {
    this.#options.metrics?.pushed(
      destination.address.provider,
      outcome.status ?? undefined,
      (performance.now() - sent) / 1000,
    );
    try {
      // Not claimed any more: a stop that ran out of time released it.
      if (this.#claimed.delete(destination)) this.#record(destination, outcome);
    } finally {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const resolve of this.#whenNoneInFlight.splice(0)) resolve();
      this.#wake?.('finished');
    }
  }

  /** What the response means for the destination, kept to be written with the others of this turn. */
  #record(destination: ClaimedDestination, outcome: PushOutcome): void {
    const now = this.#options.clock.now();
    if (outcome.pauseCredential) {
      const { provider } = destination.address;
      this.#pausedUntil.set(provider, now + this.#options.credentialPauseMs);
      this.#options.log?.error("the push service refused the credential; this provider's pushes paused", {
        provider,
        status: outcome.status,
        reason: outcome.reason,
        pausedForMs: this.#options.credentialPauseMs,
      });
    }
    void this.#recorder.add({
      attempt: {
        notificationId: destination.notificationId,
        deviceId: destination.deviceId,
        owner: this.owner,
        end: endOfAttempt(destination, outcome, now),
      },
      provider: destination.address.provider,
      outcome,
    });
  }

  /**
   * The operator is told of what the recorded ends did: a warning for each destination that ended
   * `failed_permanent` (its lease still this worker's), with why and what the push service said,
   * and one for each device its push service made inactive; each failure counted.
   */
  #tell(endings: readonly Ending[], recorded: RecordedEnds): void {
    const failed = new Set(recorded.failed.map((key) => `${key.notificationId} ${key.deviceId}`));
    const deactivated = new Set(recorded.deactivated);
    for (const { attempt, provider, outcome } of endings) {
      const { notificationId, deviceId, end } = attempt;
      if (end.kind !== 'failed_permanent' || !failed.has(`${notificationId} ${deviceId}`)) continue;
      this.#options.metrics?.failed(provider, end.reason);
      this.#options.log?.warn('a push will not arrive', {
        notification_id: notificationId,
        device_id: deviceId,
        provider,
        reason: end.reason,
        ...(end.pushStatus === null ? {} : { push_status: end.pushStatus }),
        ...(outcome?.reason === undefined ? {} : { push_reason: outcome.reason }),
        ...(outcome?.tlsCode === undefined ? {} : { tls_code: outcome.tlsCode }),
        ...(outcome?.host === undefined ? {} : { host: outcome.host }),
        ...(outcome?.error === undefined ? {} : { error: outcome.error }),
      });
      if (end.deactivateDevice && deactivated.has(deviceId)) {
        this.#options.log?.warn('a push service made a device inactive', {
          device_id: deviceId,
          provider,
          inactive_reason: end.deactivateDevice,
          notification_id: notificationId,
          ...(end.pushStatus === null ? {} : { push_status: end.pushStatus }),
        });
      }
    }
  }

  /** A destination the store ended while this worker claimed: told and counted as the others. */
  #tellEnded(destination: EndedDestination): void {
    const { notificationId, deviceId, provider, reason, pushStatus } = destination;
    this.#options.metrics?.failed(provider, reason);
    this.#options.log?.warn('a push will not arrive', {
      notification_id: notificationId,
      device_id: deviceId,
      provider,
      reason,
      ...(pushStatus === null ? {} : { push_status: pushStatus }),
      ...(reason === 'attempts_exhausted' ? { error: 'the lease of its last attempt ran out' } : {}),
    });
  }
}
