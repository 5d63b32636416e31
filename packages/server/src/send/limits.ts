import { MINUTE_MS } from '../clock.js';
import type { RateLimits, SendOutcome } from '../store/store.js';

/** Accepted sends of one token or account in one whole second (epoch seconds). */
export interface SecondCount {
  second: number;
  count: number;
}

/** What the store read about a sender's recent sends, for admitting one more. */
export interface RecentSends {
  /** The token's sends per second over the last minute. */
  tokenWindow: SecondCount[];
  /** The account's sends per second over the last minute. */
  accountWindow: SecondCount[];
  /** Accepted sends of the account this UTC month. */
  monthlyCount: number;
}

export type Admission =
  | { ok: true }
  | { ok: false; kind: 'quota_exceeded' }
  | { ok: false; kind: 'rate_limited'; scope: 'token' | 'account'; retryAfterSeconds: number };

/** The first epoch second still inside the minute window at `now`. */
export function windowStart(now: number): number {
  return Math.floor((now - MINUTE_MS) / 1000) + 1;
}

/**
 * Whether one more send is admitted. The minute windows slide by whole seconds: sends are counted
 * per second, so a check reads at most 60 counts whatever the limit. A send is admitted again as
 * soon as enough seconds have left the window, and `Retry-After` says when that is, in whole
 * seconds from 1 to 60 (spec-decisions 22). The month is checked first: waiting would not help.
 */
export function admitSend(recent: RecentSends, limits: RateLimits, now: number): Admission {
  if (recent.monthlyCount >= limits.perAccountPerMonth) return { ok: false, kind: 'quota_exceeded' };
  let limited: Admission = { ok: true };
  for (const [scope, window, limit] of [
    ['token', recent.tokenWindow, limits.perTokenPerMinute],
    ['account', recent.accountWindow, limits.perAccountPerMinute],
  ] as const) {
    const retryAfterSeconds = secondsUntilRoom(window, limit, now);
    if (retryAfterSeconds === undefined) continue;
    if (limited.ok || (limited.kind === 'rate_limited' && retryAfterSeconds > limited.retryAfterSeconds)) {
      limited = { ok: false, kind: 'rate_limited', scope, retryAfterSeconds };
    }
  }
  return limited;
}

/** Seconds until the window has room for one more send, or undefined when it has room now. */
function secondsUntilRoom(window: SecondCount[], limit: number, now: number): number | undefined {
  const start = windowStart(now);
  let count = 0;
  for (const bucket of window) if (bucket.second >= start) count += bucket.count;
  if (count < limit) return undefined;
  // Only a refusal needs the seconds in order, to find when enough of them have left.
  const inWindow = window.filter((bucket) => bucket.second >= start).sort((a, b) => a.second - b.second);
  for (const bucket of inWindow) {
    count -= bucket.count;
    if (count < limit) {
      // The bucket leaves the window when its second is a minute old.
      const freedAt = (bucket.second + 60) * 1000;
      return Math.min(60, Math.max(1, Math.ceil((freedAt - now) / 1000)));
    }
  }
  return 60;
}

/** The outcome of a send `admitSend` refused, with the month's count as it stands. */
export function refusalOf(admission: Exclude<Admission, { ok: true }>, monthlyCount: number): SendOutcome {
  return admission.kind === 'quota_exceeded'
    ? { kind: 'quota_exceeded', monthlyCount }
    : {
        kind: 'rate_limited',
        scope: admission.scope,
        retryAfterSeconds: admission.retryAfterSeconds,
        monthlyCount,
      };
}
