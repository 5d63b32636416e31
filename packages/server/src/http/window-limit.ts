import { type Clock, retryAfterSeconds } from '../kernel/clock.js';
import { Refusal } from '../kernel/refusal.js';

/** Past this many keys in the map, windows that ended are dropped on the next count. */
const PRUNE_AT = 10_000;

/** What a limit counts, named in its refusal's `details.scope`. */
export type LimitScope = 'account_changes' | 'account_events' | 'failed_credentials' | 'link_requests';
/** The scopes counted per account, by the route that writes (`config.accountWrite`). */
export type AccountWriteScope = Exclude<LimitScope, 'failed_credentials' | 'link_requests'>;

const REFUSAL: Record<LimitScope, string> = {
  account_changes: 'too many changes to this account in the last minute',
  account_events: 'too many opened or cleared reports for this account in the last minute',
  failed_credentials: 'too many unknown credentials from this address in the last minute',
  link_requests: 'too many link requests from this address in the last 10 minutes',
};

/**
 * A brake counted per key (an account, a client address) in fixed windows (a minute unless said),
 * in this process; past it, `429 rate_limited` with the scope, the limit and the seconds until the
 * window ends. Used for management writes, opened and cleared reports (per account), unknown
 * credentials and link requests (per client address). Written here rather than taken from @fastify/rate-limit: that
 * plugin reads `Date.now()`, and every window here is tested exactly on the injected clock.
 * Several processes each count their own share: these are brakes on scripts gone wrong and on
 * guessing, not exact budgets (sends keep theirs in the database).
 */
export class WindowLimit {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perWindow: number,
    private readonly clock: Clock,
    private readonly scope: LimitScope,
    private readonly windowMs = 60_000,
  ) {}

  /** Throws `429 rate_limited` while `key` has reached the limit in its current window. */
  check(key: string): void {
    const now = this.clock.now();
    const window = this.#windows.get(key);
    if (!window || now - window.start >= this.windowMs || window.count < this.perWindow) return;
    const retryAfter = retryAfterSeconds(window.start + this.windowMs - now);
    throw new Refusal('rate_limited', `${REFUSAL[this.scope]}; retry after Retry-After`, {
      headers: { 'retry-after': String(retryAfter) },
      details: { scope: this.scope, limit: this.perWindow },
    });
  }

  /** Counts one for `key`, in a new window when its last one ended. */
  count(key: string): void {
    const now = this.clock.now();
    if (this.#windows.size > PRUNE_AT) {
      for (const [id, window] of this.#windows)
        if (now - window.start >= this.windowMs) this.#windows.delete(id);
    }
    const window = this.#windows.get(key);
    if (!window || now - window.start >= this.windowMs) this.#windows.set(key, { start: now, count: 1 });
    else window.count += 1;
  }

  /** Checks, then counts: a write that is let through is one of the window's. */
  take(key: string): void {
    this.check(key);
    this.count(key);
  }
}
