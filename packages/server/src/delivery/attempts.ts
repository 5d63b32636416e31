import type { AttemptEnd, ClaimedDestination } from '../model/leases.js';
import type { PushOutcome } from './transport.js';

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
 * How one attempt ends, from what its transport made of the response: accepted, failed for good, or
 * another attempt after the wait, unless that was the last attempt (the cap is decided here and
 * nowhere else). A retry due after the deadline stays pending until the deadline expires it.
 */
export function endOfAttempt(destination: ClaimedDestination, outcome: PushOutcome, now: number): AttemptEnd {
  const { verdict, status } = outcome;
  if (verdict === 'accepted') return { kind: 'accepted', pushStatus: status ?? 200 };
  if (verdict === 'failed_permanent') {
    return {
      kind: 'failed_permanent',
      pushStatus: status,
      // Every transport names why; an error that names none is the push service's.
      reason: outcome.failure ?? 'refused',
      deactivateDevice: outcome.deactivateDevice,
    };
  }
  if (destination.attempt >= MAX_ATTEMPTS) {
    return {
      kind: 'failed_permanent',
      pushStatus: status,
      reason: 'attempts_exhausted',
      deactivateDevice: null,
    };
  }
  return { kind: 'retry', pushStatus: status, nextAttemptAt: now + retryDelayMs(destination.attempt) };
}
