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
  /** When the device registered this address: an older "gone" response does not deactivate it. */
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
 * transport reads its push service's response once, and the worker applies the attempt cap and
 * the deadline to it (attempts.ts).
 */
export interface PushOutcome {
  /** Accepted; worth another attempt (a 429, a 5xx, no response); or rejected for good. */
  readonly verdict: 'accepted' | 'retry' | 'failed_permanent';
  /** The push service's HTTP status, the destination's `push_status`; null when none responded. */
  readonly status: number | null;
  /** With `failed_permanent`: why the push will not arrive, the destination's `reason`. */
  readonly failure?: PushFailureReason | undefined;
  /** The push service's own reason (APNs' `BadDeviceToken`), for the log, when it gave one. */
  readonly reason?: string | undefined;
  /**
   * For the log: why no response came, or what the address guard found (never a secret, never a
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
   * The credential itself was rejected: pushes wait a while, so the destinations still queued are
   * not spent one by one on the same error.
   */
  readonly pauseCredential: boolean;
}

/**
 * A way to devices: APNs (delivery/apns/) today, a sibling for each other push service. `push`
 * never rejects: a push that got no response is an outcome too.
 */
export interface PushTransport {
  push(destination: PushDestination): Promise<PushOutcome>;
  /**
   * Opens now what its first push would otherwise open (APNs: the HTTP/2 connection, and the
   * provider token signed), so that the first sends of a start are not pushed later than the rest.
   * Rejects when it could not. A transport with nothing to open (one connection per push service,
   * as Web Push's) has none.
   */
  warm?(): Promise<void>;
  close(): Promise<void>;
}

/** A push that got no response (connection refused, reset, timed out): another attempt later. */
export const NO_RESPONSE: PushOutcome = {
  verdict: 'retry',
  status: null,
  deactivateDevice: null,
  pauseCredential: false,
};

/** OpenSSL's certificate verification errors, by the codes Node gives them. */
const CERTIFICATE_ERRORS = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

/**
 * Whether a connection failed on the push service's certificate or its TLS handshake: the error's
 * code (of the error or any it wraps, as undici wraps a connection's), else undefined. Every
 * transport reads it the same way: another attempt would meet the same certificate, so such a push
 * fails for good at once (reason `tls`), its sender hears of it without waiting for every retry,
 * and the operator reads the code (`DEPTH_ZERO_SELF_SIGNED_CERT`, `CERT_HAS_EXPIRED`,
 * `ERR_TLS_CERT_ALTNAME_INVALID`, `ERR_SSL_WRONG_VERSION_NUMBER`…).
 */
export function tlsFailureOf(error: unknown): string | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth += 1) {
    const { code } = at as NodeJS.ErrnoException;
    // A handshake that took too long is no response, worth another attempt like any other.
    if (typeof code !== 'string' || code === 'ERR_TLS_HANDSHAKE_TIMEOUT') continue;
    if (CERTIFICATE_ERRORS.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) {
      return code;
    }
  }
  return undefined;
}
