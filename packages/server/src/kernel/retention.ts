import { DAY_MS, MINUTE_MS } from './clock.js';

/** A message stays readable (status, inbox) for 30 days regardless of `ttl` (spec, rule 4). */
export const NOTIFICATION_RETENTION_MS = 30 * DAY_MS;
/** An `Idempotency-Key` is remembered 24 hours. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = DAY_MS;
/** How often a process purges what is past its retention. */
export const PURGE_INTERVAL_MS = DAY_MS / 24;

/**
 * What a purge at `now` deletes: notifications past their retention, idempotency keys past their
 * lifetime, rate windows older than their minute, and retired credentials as old as the oldest
 * notification kept (none of those can name them any more).
 */
export function retentionCutoffs(now: number) {
  return {
    notificationsBefore: now - NOTIFICATION_RETENTION_MS,
    keysBefore: now - IDEMPOTENCY_KEY_LIFETIME_MS,
    windowsBefore: now - MINUTE_MS,
    credentialsBefore: now - NOTIFICATION_RETENTION_MS,
  };
}
