/** SQL that reads the same in SQLite and PostgreSQL, shared by both stores. */

/**
 * The earliest time delivery has something to do: a queued notification (`queuedSince`, the
 * store's query for its oldest queued send), a destination due or expiring, or a lease running
 * out. min() over rows, not min(a, b, …), which is NULL as soon as one argument is.
 */
export const nextDeliveryAt = (queuedSince: string) => `SELECT min(at) AS at FROM (
  ${queuedSince}
  UNION ALL SELECT min(next_attempt_at) FROM destinations WHERE state = 'pending'
  UNION ALL SELECT min(expires_at) FROM destinations WHERE state = 'pending'
  UNION ALL SELECT min(lease_until) FROM destinations WHERE state = 'sending'
) AS due`;
