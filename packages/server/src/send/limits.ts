import { MINUTE_MS } from '../clock.js';
import type { RateLimits } from '../store/store.js';

/** What the store read about a sender's recent sends, for admitting one more. */
export interface RecentSends {
  /** Creation time of the token's `perTokenPerMinute`-th newest send in the last minute, if it has that many. */
  tokenLimitingSendAt: number | undefined;
  /** The same for the account and `perAccountPerMinute`. */
  accountLimitingSendAt: number | undefined;
  /** Accepted sends of the account this UTC month. */
  monthlyCount: number;
}

export type Admission =
  | { ok: true }
  | { ok: false; kind: 'quota_exceeded' }
  | { ok: false; kind: 'rate_limited'; scope: 'token' | 'account'; retryAfterSeconds: number };

/**
 * Whether one more send is admitted. The minute windows slide: a send is admitted again as soon
 * as the limiting send is a minute old, and `Retry-After` says when that is, in whole seconds
 * from 1 to 60 (spec-decisions 22). The month is checked first because waiting would not help.
 */
export function admitSend(recent: RecentSends, limits: RateLimits, now: number): Admission {
  if (recent.monthlyCount >= limits.perAccountPerMonth) return { ok: false, kind: 'quota_exceeded' };
  const windows = [
    ['token', recent.tokenLimitingSendAt],
    ['account', recent.accountLimitingSendAt],
  ] as const;
  let limited: Admission = { ok: true };
  for (const [scope, limitingAt] of windows) {
    if (limitingAt === undefined || limitingAt <= now - MINUTE_MS) continue;
    const retryAfterSeconds = Math.min(60, Math.max(1, Math.ceil((limitingAt + MINUTE_MS - now) / 1000)));
    if (limited.ok || (limited.kind === 'rate_limited' && retryAfterSeconds > limited.retryAfterSeconds)) {
      limited = { ok: false, kind: 'rate_limited', scope, retryAfterSeconds };
    }
  }
  return limited;
}
