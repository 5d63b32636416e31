/**
 * Why a push will not arrive, in one vocabulary for every place that reports it: a destination's
 * `reason` in a status record, the server's log lines and its `foxbell_push_failures_total`
 * counter, and the words `notify`, the SDK and the web app show a person.
 */
export const PUSH_FAILURE_REASONS = [
  /** The push service responded with 404 or 410: the subscription or token is gone. */
  'gone',
  /** The push service rejected the push with another 4xx. */
  'refused',
  /** The server refused to connect to the push address (a private or reserved network address). */
  'address_refused',
  /** The push service's host is not on the server's allowlist. */
  'not_allowed',
  /** The push service's certificate is not trusted, or its TLS handshake failed. */
  'tls',
  /** Every attempt failed to get a response the push service meant (no response, 429, 5xx). */
  'attempts_exhausted',
  /** The notification's `ttl` ran out before the push was sent. */
  'expired',
] as const;
export type PushFailureReason = (typeof PUSH_FAILURE_REASONS)[number];

/**
 * Why a device is no longer active: `inactive_reason` on the device objects an account key reads,
 * absent while the device is active.
 */
export const INACTIVE_REASONS = [
  /** Its push service responded with 404 or 410: the browser dropped the subscription. */
  'subscription_gone',
  /** APNs said its token is no longer valid. */
  'unregistered',
  /** A person removed it, with an account key or its own device key. */
  'removed',
  /** Another account registered its push address. */
  'moved',
] as const;
export type InactiveReason = (typeof INACTIVE_REASONS)[number];

/** What went wrong and what to do about it, as a person reads it. */
export interface InWords {
  what: string;
  advice: string;
}

const FAILURE_WORDS: Record<PushFailureReason, InWords> = {
  gone: {
    what: 'its notifications are turned off (the push service says its subscription is gone)',
    advice: 'open Foxbell on it to turn notifications on again',
  },
  refused: {
    what: 'its push service refused the notification',
    advice: "the server's operator can read the push service's response in the server's log",
  },
  address_refused: {
    what: 'its push address is on a private or reserved network, which the server will not connect to',
    advice: 'link the device again from its browser',
  },
  not_allowed: {
    what: "its push service is not on the server's list of allowed push services",
    advice: "the server's operator can allow it with --web-push-hosts",
  },
  tls: {
    what: "the server does not trust its push service's certificate",
    advice: "the server's operator can trust the push service's CA with --web-push-ca",
  },
  attempts_exhausted: {
    what: 'its push service did not take the notification after every attempt',
    advice: 'send it again later',
  },
  expired: {
    what: 'its time to live ran out before it could be sent',
    advice: 'send it again, with a longer ttl if it has one',
  },
};

const INACTIVE_WORDS: Record<InactiveReason, InWords> = {
  subscription_gone: {
    what: 'its notifications were turned off or its subscription was dropped',
    advice: 'open Foxbell on it to turn notifications on again',
  },
  unregistered: {
    what: 'Apple says its push token is no longer valid',
    advice: 'open the app on it so it registers again',
  },
  removed: {
    what: 'it was removed',
    advice: 'link it again to receive notifications on it',
  },
  moved: {
    what: 'another account registered it',
    advice: 'it now receives that account’s notifications; link it again to move it back',
  },
};

const UNKNOWN: InWords = {
  what: 'it could not be reached',
  advice: "the server's operator can read why in the server's log",
};

/** A destination's failure in words; a reason this version does not know still reads as a sentence. */
export function pushFailureInWords(reason: string | undefined): InWords {
  return (reason !== undefined && (FAILURE_WORDS as Record<string, InWords>)[reason]) || UNKNOWN;
}

/** Why a device is inactive, in words; a reason this version does not know still reads as a sentence. */
export function inactiveInWords(reason: string | undefined): InWords {
  return (
    (reason !== undefined && (INACTIVE_WORDS as Record<string, InWords>)[reason]) || {
      what: 'it is no longer active',
      advice: 'link it again to receive notifications on it',
    }
  );
}
