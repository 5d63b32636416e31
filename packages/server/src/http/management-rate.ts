import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';

const WINDOW_MS = 60_000;
/** Past this many accounts in the map, windows that ended are dropped on the next take. */
const PRUNE_AT = 10_000;

/** What a window counts, named in a refusal's `details.scope`. */
export type AccountWriteScope = 'account_changes' | 'account_events';

const REFUSAL: Record<AccountWriteScope, string> = {
  account_changes: 'too many changes to this account in the last minute; retry after Retry-After',
  account_events:
    'too many opened or cleared reports for this account in the last minute; retry after Retry-After',
};

/**
 * Account writes per account per minute, of one scope: management writes (devices, tokens, key
 * rotation, deletion), or the reports of what was opened and cleared. Counted in
 * this process in fixed one-minute windows. Written here rather than taken from
 * @fastify/rate-limit: that plugin reads `Date.now()`, and every window here is tested exactly on
 * the injected clock. Several processes each count their own share: the limit is a brake on
 * scripts gone wrong, not an exact budget (sends keep theirs in the database).
 */
export class ManagementWriteLimit {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
    private readonly scope: AccountWriteScope,
  ) {}

  /** Counts one write of `accountId`, or throws `429 rate_limited` with the seconds until the next window. */
  take(accountId: string): void {
    const now = this.clock.now();
    if (this.#windows.size > PRUNE_AT) {
      for (const [id, window] of this.#windows) if (now - window.start >= WINDOW_MS) this.#windows.delete(id);
    }
    let window = this.#windows.get(accountId);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.#windows.set(accountId, window);
    }
    if (window.count >= this.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
      throw new ApiError('rate_limited', REFUSAL[this.scope], {
        headers: { 'retry-after': String(retryAfter) },
        details: { scope: this.scope, limit: this.perMinute },
      });
    }
    window.count += 1;
  }
}
