/**
 * What each answer of Apple's provider API means for a destination, as one table. Statuses and
 * reasons are Apple's ("Handling notification responses from APNs").
 */

/** What the worker does with the destination, and what else the answer asks of it. */
export interface ApnsVerdict {
  readonly destination: 'accepted' | 'retry' | 'failed_permanent';
  /** The push token is gone (410): the device leaves lists and `auto`. */
  readonly deactivateDevice: boolean;
  /** Our provider token was refused as too old: make a new one before the next push. */
  readonly renewToken: boolean;
  /**
   * The credential itself is refused: stop pushing with it for a while, so the destinations
   * still waiting are not spent one by one on the same refusal.
   */
  readonly pauseCredential: boolean;
}

export interface ApnsAnswer {
  status: number;
  reason?: string | undefined;
  /** A 410's `timestamp`: when APNs learnt the token was no longer valid (epoch ms). */
  timestamp?: number | undefined;
}

const verdict = (destination: ApnsVerdict['destination'], extra: Partial<ApnsVerdict> = {}): ApnsVerdict => ({
  destination,
  deactivateDevice: false,
  renewToken: false,
  pauseCredential: false,
  ...extra,
});

/** 403 reasons that say the key, team or certificate is wrong, not this notification. */
const CREDENTIAL_REFUSALS = new Set([
  'BadCertificate',
  'BadCertificateEnvironment',
  'Forbidden',
  'InvalidProviderToken',
  'MissingProviderToken',
  'UnrelatedKeyIdInToken',
  'BadEnvironmentKeyInToken',
]);

/** The verdicts nearly every answer gets, made once: a busy worker judges thousands a second. */
const ACCEPTED = verdict('accepted');
const RETRY = verdict('retry');

/** The verdict on an answer, for a device whose push token was registered at `pushTokenSince`. */
export function judgeApnsAnswer(answer: ApnsAnswer, pushTokenSince: number): ApnsVerdict {
  const { status, reason } = answer;
  if (status === 200) return ACCEPTED;
  if (status === 410) {
    // A token registered after APNs found the old one gone is a new registration: keep it.
    const goneAt = answer.timestamp ?? Number.POSITIVE_INFINITY;
    return verdict('failed_permanent', { deactivateDevice: pushTokenSince < goneAt });
  }
  if (status === 403 && reason === 'ExpiredProviderToken') {
    // Our fault, not the notification's: renew and try again (it still counts as an attempt).
    return verdict('retry', { renewToken: true });
  }
  if (status === 403)
    return verdict('failed_permanent', { pauseCredential: CREDENTIAL_REFUSALS.has(reason ?? '') });
  // 429 TooManyRequests / TooManyProviderTokenUpdates, 500 InternalServerError,
  // 503 ServiceUnavailable / Shutdown, and any other 5xx Apple may add.
  if (status === 429 || status >= 500) return RETRY;
  // 400 (BadDeviceToken, DeviceTokenNotForTopic, BadCollapseId, …), 404 BadPath,
  // 405 MethodNotAllowed, 413 PayloadTooLarge, and any other 4xx: resending cannot help.
  return verdict('failed_permanent');
}

/** A push that got no answer (connection refused, reset, timed out): try again later. */
export const NO_ANSWER_VERDICT: ApnsVerdict = RETRY;
