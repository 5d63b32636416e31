import type { PushOutcome } from '../transport.js';

/**
 * What each response of Apple's provider API means for a destination, as one table. Statuses and
 * reasons are Apple's ("Handling notification responses from APNs").
 */

/** What a response means, and whether it asks for a new provider token (the client's business). */
export interface ApnsVerdict extends PushOutcome {
  /** Our provider token was rejected as too old: make a new one before the next push. */
  readonly renewToken: boolean;
}

export interface ApnsResponse {
  status: number;
  reason?: string | undefined;
  /** A 410's `timestamp`: when APNs learnt the token was no longer valid (epoch ms). */
  timestamp?: number | undefined;
}

const verdict = (
  response: ApnsResponse,
  kind: ApnsVerdict['verdict'],
  extra: Partial<ApnsVerdict> = {},
): ApnsVerdict => ({
  verdict: kind,
  status: response.status,
  reason: response.reason,
  // Apple rejects for good with a 4xx: a 410 says the token is gone, any other the push itself.
  ...(kind === 'failed_permanent' ? { failure: response.status === 410 ? 'gone' : 'refused' } : {}),
  deactivateDevice: null,
  renewToken: false,
  pauseCredential: false,
  ...extra,
});

/** 403 reasons that say the key, team or certificate is wrong, not this notification. */
const CREDENTIAL_REJECTIONS = new Set([
  'BadCertificate',
  'BadCertificateEnvironment',
  'Forbidden',
  'InvalidProviderToken',
  'MissingProviderToken',
  'UnrelatedKeyIdInToken',
  'BadEnvironmentKeyInToken',
]);

/** The verdict nearly every response gets, made once: a busy worker judges thousands a second. */
const ACCEPTED = verdict({ status: 200 }, 'accepted');

/** The verdict on a response, for a device whose push token was registered at `addressSince`. */
export function judgeApnsResponse(response: ApnsResponse, addressSince: number): ApnsVerdict {
  const { status, reason } = response;
  if (status === 200) return ACCEPTED;
  if (status === 410) {
    // A token registered after APNs found the old one gone is a new registration: keep it.
    const goneAt = response.timestamp ?? Number.POSITIVE_INFINITY;
    return verdict(response, 'failed_permanent', {
      deactivateDevice: addressSince < goneAt ? 'unregistered' : null,
    });
  }
  if (status === 403 && reason === 'ExpiredProviderToken') {
    // Our fault, not the notification's: renew and try again (it still counts as an attempt).
    return verdict(response, 'retry', { renewToken: true });
  }
  if (status === 403) {
    return verdict(response, 'failed_permanent', {
      pauseCredential: CREDENTIAL_REJECTIONS.has(reason ?? ''),
    });
  }
  // 429 TooManyRequests / TooManyProviderTokenUpdates, 500 InternalServerError,
  // 503 ServiceUnavailable / Shutdown, and any other 5xx Apple may add.
  if (status === 429 || status >= 500) return verdict(response, 'retry');
  // 400 (BadDeviceToken, DeviceTokenNotForTopic, BadCollapseId, …), 404 BadPath,
  // 405 MethodNotAllowed, 413 PayloadTooLarge, and any other 4xx: resending cannot help. The
  // device stays active: BadDeviceToken is what every token gets from the wrong environment
  // (a sandbox token sent to production), which is the server's setting, not the device.
  return verdict(response, 'failed_permanent');
}
