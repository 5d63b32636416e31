import type { Notification } from '@foxbell/sdk/contract';
import { MINUTE_MS } from '../kernel/clock.js';
import type { RateLimits } from '../kernel/limits.js';
import type { Account } from './accounts.js';
import type { SendToken } from './tokens.js';

/** A validated send, ready to be stored. */
export interface NewSend {
  id: string;
  requestId: string;
  account: Account;
  token: SendToken;
  /** The validated fields, with `target` resolved (the send's, else the token's default, else `auto`). */
  notification: Notification & { target: string };
  idempotency: { key: string; fingerprint: string } | undefined;
  now: number;
  limits: RateLimits;
}

/** What became of a send. `monthlyCount` is the account's accepted sends this UTC month, after it. */
export type SendOutcome =
  | { kind: 'accepted'; id: string; requestId: string; monthlyCount: number }
  | { kind: 'replayed'; id: string; requestId: string; monthlyCount: number }
  | { kind: 'idempotency_conflict'; monthlyCount: number }
  | {
      kind: 'rate_limited';
      scope: 'token' | 'account';
      /** The limit of that scope, for the error's `details`. */
      limit: number;
      retryAfterSeconds: number;
      monthlyCount: number;
    }
  | { kind: 'quota_exceeded'; limit: number; monthlyCount: number };

// Whether a send is admitted, decided the same way by both stores: the Idempotency-Key first (a
// replay gets its response whatever the limits), then the month, then the minute windows. Pure: each
// store reads what it needs the way it reads best and hands it over as a `SenderView`.

/** Accepted sends of one token or account in one whole second (epoch seconds). */
export interface SecondCount {
  second: number;
  count: number;
}

/** The sender's sends per second over the last minute, for admitting one more. */
export interface SenderWindows {
  tokenWindow: SecondCount[];
  accountWindow: SecondCount[];
}

/** What the store read about a sender's recent sends. */
interface RecentSends extends SenderWindows {
  /** Accepted sends of the account this UTC month. */
  monthlyCount: number;
}

type Admission =
  | { ok: true }
  | { ok: false; kind: 'quota_exceeded'; limit: number }
  | { ok: false; kind: 'rate_limited'; scope: 'token' | 'account'; limit: number; retryAfterSeconds: number };

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
function admitSend(recent: RecentSends, limits: RateLimits, now: number): Admission {
  if (recent.monthlyCount >= limits.perAccountPerMonth) {
    return { ok: false, kind: 'quota_exceeded', limit: limits.perAccountPerMonth };
  }
  let limited: Admission = { ok: true };
  for (const [scope, window, limit] of [
    ['token', recent.tokenWindow, limits.perTokenPerMinute],
    ['account', recent.accountWindow, limits.perAccountPerMinute],
  ] as const) {
    const retryAfterSeconds = secondsUntilRoom(window, limit, now);
    if (retryAfterSeconds === undefined) continue;
    if (limited.ok || (limited.kind === 'rate_limited' && retryAfterSeconds > limited.retryAfterSeconds)) {
      limited = { ok: false, kind: 'rate_limited', scope, limit, retryAfterSeconds };
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
  // Only an error needs the seconds in order, to find when enough of them have left.
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

/** What admission reads about a send's sender, as the store has it, this batch's sends included. */
export interface SenderView {
  /** The token's earlier send with the same Idempotency-Key, within the key's lifetime. */
  earlier: () => { fingerprint: string; id: string; requestId: string } | undefined;
  /** Read only when the key does not decide: a replay reads no window. */
  windows: () => SenderWindows;
  /** Accepted sends of the account this UTC month. */
  monthlyCount: number;
}

/** The outcome of one send; `accepted` means the store must now store it and count it. */
export function admit(send: NewSend, view: SenderView): SendOutcome {
  const { monthlyCount } = view;
  if (send.idempotency) {
    const earlier = view.earlier();
    if (earlier) {
      return earlier.fingerprint === send.idempotency.fingerprint
        ? { kind: 'replayed', id: earlier.id, requestId: earlier.requestId, monthlyCount }
        : { kind: 'idempotency_conflict', monthlyCount };
    }
  }
  const admission = admitSend({ ...view.windows(), monthlyCount }, send.limits, send.now);
  if (!admission.ok) return rejectedOutcome(admission, monthlyCount);
  return { kind: 'accepted', id: send.id, requestId: send.requestId, monthlyCount: monthlyCount + 1 };
}

/** One more send in its second of a window, which the batch's later sends must see. */
export function countInWindow(window: SecondCount[], now: number): void {
  const second = Math.floor(now / 1000);
  const bucket = window.findLast((b) => b.second === second);
  if (bucket) bucket.count += 1;
  else window.push({ second, count: 1 });
}

/** The outcome of a send `admitSend` rejected, with the month's count as it stands. */
function rejectedOutcome(admission: Exclude<Admission, { ok: true }>, monthlyCount: number): SendOutcome {
  const { ok: _, ...rejected } = admission;
  return { ...rejected, monthlyCount };
}
