import type { Notification, Platform, PushFailureReason } from '@foxbell/sdk/contract';
import type { AddressGone, PushAddress } from '../model/devices.js';

/**
 * What a push is made of: one destination of one notification. The store's claimed destinations
 * are of this shape; a transport needs no more of them (and imports nothing of the store).
 */
export interface PushDestination {
  notificationId: string;
  platform: Platform;
  /** Where it goes, in its provider's terms: the transport of `address.provider` reads it. */
  address: PushAddress;
  /** When the device registered this address: an older "gone" answer does not deactivate it. */
  addressSince: number;
  /** Fixed when the destination was made; the same on every attempt (APNs' `apns-id`). */
  pushId: string;
  senderName: string;
  notification: Notification;
  expiresAt: number;
  /** The device's unread count, for its app's badge, where its provider asks for one; else null. */
  unread: number | null;
}

/**
 * What one push came to, in the terms of the delivery rules every transport shares: the
 * transport reads its push service's answer once, and the worker applies the attempt cap and
 * the deadline to it (attempts.ts).
 */
export interface PushOutcome {
  /** Accepted; worth another attempt (a 429, a 5xx, no answer); or refused for good. */
  readonly verdict: 'accepted' | 'retry' | 'failed_permanent';
  /** The push service's HTTP status, the destination's `push_status`; null when none answered. */
  readonly status: number | null;
  /** With `failed_permanent`: why the push will not arrive, the destination's `reason`. */
  readonly failure?: PushFailureReason | undefined;
  /** The push service's own reason (APNs' `BadDeviceToken`), for the log, when it gave one. */
  readonly reason?: string | undefined;
  /**
   * For the log: why no answer came, or what the address guard found (never a secret, never a
   * Web Push endpoint's path).
   */
  readonly error?: string | undefined;
  /** For the log: the TLS error's code, when the push service's certificate or handshake failed. */
  readonly tlsCode?: string | undefined;
  /** For the log: the push service's host, where the address names one (Web Push). */
  readonly host?: string | undefined;
  /** The device's push token or subscription is gone: it leaves lists and `auto`, for this reason. */
  readonly deactivateDevice: AddressGone | null;
  /**
   * The credential itself was refused: pushes wait a while, so the destinations still queued are
   * not spent one by one on the same refusal.
   */
  readonly pauseCredential: boolean;
}

/**
 * A way to devices: APNs (delivery/apns/) today, a sibling for each other push service. `push`
 * never rejects: a push that got no answer is an outcome too.
 */
export interface PushTransport {
  push(destination: PushDestination): Promise<PushOutcome>;
  close(): Promise<void>;
}

/** A push that got no answer (connection refused, reset, timed out): another attempt later. */
export const NO_ANSWER: PushOutcome = {
  verdict: 'retry',
  status: null,
  deactivateDevice: null,
  pauseCredential: false,
};
