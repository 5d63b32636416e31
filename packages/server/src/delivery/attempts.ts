import type { AttemptEnd, ClaimedDestination } from '../store/store.js';
import type { PushResult } from './apns/client.js';
import { type ApnsVerdict, judgeApnsAnswer, NO_ANSWER_VERDICT } from './apns/responses.js';

/**
 * How long a lease on a destination being pushed lasts between renewals. Its worker renews it every
 * third of this while the push is out, so this is not a bound on how long APNs may take: it is how
 * soon another worker takes the push over when its worker died or is stuck. `--lease-seconds`
 * changes it.
 */
export const DEFAULT_LEASE_MS = 6_000;

/** At most this many attempts per device (spec, Limits). */
export const MAX_ATTEMPTS = 5;

/** The wait after attempt `attempt` (from 1) before the next: 2, 4, 8, then 16 seconds. */
export function retryDelayMs(attempt: number): number {
  return 2000 * 2 ** (attempt - 1);
}

/**
 * How one attempt ends, from what APNs answered (or that it did not): accepted, failed for good,
 * or another attempt after the wait, unless that was the last attempt or the wait would pass the
 * deadline (then it fails, or expires when the deadline is what stopped it).
 */
export function endOfAttempt(
  destination: ClaimedDestination,
  result: PushResult,
  now: number,
): { end: AttemptEnd; verdict: ApnsVerdict } {
  const verdict =
    result.kind === 'answered' ? judgeApnsAnswer(result, destination.pushTokenSince) : NO_ANSWER_VERDICT;
  const pushStatus = result.kind === 'answered' ? result.status : null;
  if (verdict.destination === 'accepted')
    return { end: { kind: 'accepted', pushStatus: pushStatus ?? 200 }, verdict };
  if (verdict.destination === 'failed_permanent' || destination.attempt >= MAX_ATTEMPTS) {
    return {
      end: { kind: 'failed_permanent', pushStatus, deactivateDevice: verdict.deactivateDevice },
      verdict,
    };
  }
  // A retry due after the deadline stays pending until the deadline expires it.
  return {
    end: { kind: 'retry', pushStatus, nextAttemptAt: now + retryDelayMs(destination.attempt) },
    verdict,
  };
}
