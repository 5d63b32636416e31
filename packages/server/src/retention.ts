import { DAY_MS } from './clock.js';

/** A message stays readable (status, inbox) for 30 days regardless of `ttl` (spec, rule 4). */
export const NOTIFICATION_RETENTION_MS = 30 * DAY_MS;
/** An `Idempotency-Key` is remembered 24 hours. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = DAY_MS;
