import { DAY_MS, MINUTE_MS } from './clock.js';

/** A message stays readable (status, inbox) for 30 days regardless of `ttl` (spec, rule 4). */
export const NOTIFICATION_RETENTION_MS = 30 * DAY_MS;
/** An `Idempotency-Key` is remembered 24 hours. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = DAY_MS;
/** How often a process purges what is past its retention. */
export const PURGE_INTERVAL_MS = DAY_MS / 24;
/**
 * Rows of each kind a purge deletes in one transaction at most: small enough that sends go on
 * between two (a day's worth at once stalled them), large enough that a day's worth is a few dozen.
 */
export const PURGE_BATCH = 500;

/**
 * What a purge at `now` deletes: notifications past their retention, idempotency keys past their
 * lifetime, rate windows older than their minute, retired credentials and link requests as old
 * as the oldest notification kept (none of those can name them any more), and wrong link codes
 * long out of their lock's window.
 */
export function retentionCutoffs(now: number) {
  return {
    notificationsBefore: now - NOTIFICATION_RETENTION_MS,
    keysBefore: now - IDEMPOTENCY_KEY_LIFETIME_MS,
    windowsBefore: now - MINUTE_MS,
    credentialsBefore: now - NOTIFICATION_RETENTION_MS,
    // An approver's wrong link codes count for 10 minutes (the lock's window), an hour is kept.
    wrongCodesBefore: now - 60 * MINUTE_MS,
  };
}
