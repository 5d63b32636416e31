import { LRUCache } from 'lru-cache';
import { type Clock, retryAfterSeconds } from '../kernel/clock.js';
import { HttpError } from '../kernel/http-error.js';

/**
 * Keys (client addresses, credentials) a limit keeps at most. Past it the key used least recently
 * is forgotten, so memory and the work of each count stay the same whatever the number of clients
 * (docs/security.md says what forgetting gives an attacker: nothing that many addresses do not).
 */
export const KEYS_KEPT = 100_000;

/** What a limit counts, named in its error's `details.scope`. */
export type LimitScope = 'account_changes' | 'account_events' | 'failed_credentials' | 'link_requests';
/** The scopes counted per credential, by the route that writes (`config.accountWrite`). */
export type AccountWriteScope = Exclude<LimitScope, 'failed_credentials' | 'link_requests'>;

const LIMIT_MESSAGE: Record<LimitScope, string> = {
  account_changes: 'too many changes with this key in the last minute',
  account_events: 'too many opened or cleared reports with this key in the last minute',
  failed_credentials: 'too many unknown credentials from this address in the last minute',
  link_requests: 'too many link requests from this address in the last 10 minutes',
};

interface Window {
  start: number;
  count: number;
}

/**
 * A brake counted per key (a credential, a client address) in fixed windows (a minute unless
 * said), in this process; past it, `429 rate_limited` with the scope, the limit and the seconds
 * until the window ends. Used for management writes, opened and cleared reports (per credential),
 * unknown credentials and link requests (per client address). Written here rather than taken from
 * @fastify/rate-limit: that plugin reads `Date.now()`, and every window here is tested exactly on
 * the injected clock; lru-cache keeps the keys (only its bound is used, not its clock).
 * Several processes each count their own share: these are brakes on scripts gone wrong and on
 * guessing, not exact budgets (sends keep theirs in the database); docs/deploy.md says so.
 */
export class WindowLimit {
  readonly #windows: LRUCache<string, Window>;
  readonly #windowMs: number;

  constructor(
    private readonly perWindow: number,
    private readonly clock: Clock,
    private readonly scope: LimitScope,
    { windowMs = 60_000, keysKept = KEYS_KEPT }: { windowMs?: number; keysKept?: number } = {},
  ) {
    this.#windowMs = windowMs;
    this.#windows = new LRUCache({ max: keysKept });
  }

  /** Keys held now: at most `keysKept`. */
  get size(): number {
    return this.#windows.size;
  }

  /** Throws `429 rate_limited` while `key` has reached the limit in its current window. */
  check(key: string): void {
    const now = this.clock.now();
    const window = this.#windows.get(key);
    if (!window || now - window.start >= this.#windowMs || window.count < this.perWindow) return;
    const retryAfter = retryAfterSeconds(window.start + this.#windowMs - now);
    throw new HttpError('rate_limited', `${LIMIT_MESSAGE[this.scope]}; retry after Retry-After`, {
      headers: { 'retry-after': String(retryAfter) },
      details: { scope: this.scope, limit: this.perWindow },
    });
  }

  /** Counts one for `key`, in a new window when its last one ended; returns how to take it back. */
  count(key: string): () => void {
    const now = this.clock.now();
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.#windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    const counted = window;
    // Once its window has ended (or its key was forgotten) this changes nothing that is still read.
    return () => {
      if (counted.count > 0) counted.count -= 1;
    };
  }

  /** Checks, then counts: a write that is let through is one of the window's until it is given back. */
  take(key: string): () => void {
    this.check(key);
    return this.count(key);
  }
}
