import type { Clock } from '../kernel/clock.js';

const WINDOW_MS = 60_000;
/** Past this many keys in the map, windows that ended are dropped on the next count. */
const PRUNE_AT = 10_000;

/**
 * Counts per key (an account, a client address) in fixed one-minute windows, in this process.
 * Written here rather than taken from @fastify/rate-limit: that plugin reads `Date.now()`, and
 * every window here is tested exactly on the injected clock. Several processes each count their
 * own share: these limits are brakes, not exact budgets (sends keep theirs in the database).
 */
export class MinuteWindows {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Seconds until `key`'s window ends when it has reached the limit; undefined while under it. */
  full(key: string): number | undefined {
    const now = this.clock.now();
    const window = this.#windows.get(key);
    if (!window || now - window.start >= WINDOW_MS || window.count < this.perMinute) return undefined;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
  }

  /** Counts one for `key`, in a new window when its last one ended. */
  count(key: string): void {
    const now = this.clock.now();
    if (this.#windows.size > PRUNE_AT) {
      for (const [id, window] of this.#windows) if (now - window.start >= WINDOW_MS) this.#windows.delete(id);
    }
    const window = this.#windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) this.#windows.set(key, { start: now, count: 1 });
    else window.count += 1;
  }
}
