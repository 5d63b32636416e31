import { ApiError } from '../kernel/api-error.js';
import type { Clock } from '../kernel/clock.js';
import { MinuteWindows } from './minute-windows.js';

/** What a window counts, named in a refusal's `details.scope`. */
export type AccountWriteScope = 'account_changes' | 'account_events';

const REFUSAL: Record<AccountWriteScope, string> = {
  account_changes: 'too many changes to this account in the last minute; retry after Retry-After',
  account_events:
    'too many opened or cleared reports for this account in the last minute; retry after Retry-After',
};

/**
 * Account writes per account per minute, of one scope: management writes (devices, tokens, key
 * rotation, deletion), or the reports of what was opened and cleared. A brake on scripts gone
 * wrong (see MinuteWindows).
 */
export class ManagementWriteLimit {
  readonly #windows: MinuteWindows;

  constructor(
    perMinute: number,
    clock: Clock,
    private readonly scope: AccountWriteScope,
  ) {
    this.#windows = new MinuteWindows(perMinute, clock);
  }

  /** Counts one write of `accountId`, or throws `429 rate_limited` with the seconds until the next window. */
  take(accountId: string): void {
    const retryAfter = this.#windows.full(accountId);
    if (retryAfter !== undefined) {
      throw new ApiError('rate_limited', REFUSAL[this.scope], {
        headers: { 'retry-after': String(retryAfter) },
        details: { scope: this.scope, limit: this.#windows.perMinute },
      });
    }
    this.#windows.count(accountId);
  }
}
