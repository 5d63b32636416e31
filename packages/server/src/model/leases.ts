// A destination a worker holds under a lease, and how one attempt at it ended.
import type { Notification, Platform, PushFailureReason } from '@foxbell/sdk/contract';
import type { AddressGone, PushAddress } from './devices.js';

/** A destination a worker holds under a lease, with everything its push needs. */
export interface ClaimedDestination {
  notificationId: string;
  deviceId: string;
  platform: Platform;
  address: PushAddress;
  /** When the device's address was registered: a "gone" response older than this does not deactivate it. */
  addressSince: number;
  /** Fixed when the destination was made; the same on every attempt. */
  pushId: string;
  /** This attempt's number, from 1. */
  attempt: number;
  senderName: string;
  notification: Notification & { target: string };
  createdAt: number;
  expiresAt: number;
  /**
   * The device's unread count, for its app's badge, where its provider asks for one (Web Push):
   * the account's notifications up to this one that came after its app was last open (its key's
   * `last_seen_at`). Null where it does not.
   */
  unread: number | null;
}

/** The end of one attempt, as the worker decided it. */
export type AttemptEnd =
  | { kind: 'accepted'; pushStatus: number }
  | { kind: 'retry'; pushStatus: number | null; nextAttemptAt: number }
  | {
      kind: 'failed_permanent';
      pushStatus: number | null;
      /** Why it will not arrive: the destination's `reason`. */
      reason: PushFailureReason;
      /** Its push service said the device's address is gone: the device is made inactive, so. */
      deactivateDevice: AddressGone | null;
    }
  /**
   * Not attempted after all (shutdown, a connection that never sent it, its provider paused):
   * back to `pending`, uncounted, due again at `notBefore` (default: at once).
   */
  | { kind: 'released'; notBefore?: number };

/** A destination by its key. */
export interface LeasedKey {
  notificationId: string;
  deviceId: string;
}

/**
 * What recording attempts' ends did that the operator hears of: the destinations that ended
 * `failed_permanent` (an end whose lease another worker had taken over changes nothing), and the
 * devices their push service's response made inactive (one inactive already is not made so again).
 */
export interface RecordedEnds {
  failed: LeasedKey[];
  deactivated: string[];
}

/**
 * A destination the store ended itself while claiming: its deadline passed while it waited
 * (`expired`), or the worker leasing its last attempt died (`failed_permanent`,
 * `attempts_exhausted`).
 */
export interface EndedDestination extends LeasedKey {
  provider: string;
  state: 'expired' | 'failed_permanent';
  reason: Extract<PushFailureReason, 'expired' | 'attempts_exhausted'>;
  pushStatus: number | null;
}

export interface FinishedAttempt {
  notificationId: string;
  deviceId: string;
  /** The lease holder; an attempt whose lease was taken over by another worker is not recorded. */
  owner: string;
  end: AttemptEnd;
}
