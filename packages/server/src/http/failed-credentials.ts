import { ApiError } from '../kernel/api-error.js';
import type { Clock } from '../kernel/clock.js';
import { MinuteWindows } from './minute-windows.js';

/**
 * Unknown credentials per client address per minute. Past the limit, every request from that
 * address that carries a credential is answered `429 rate_limited` (`details.scope:
 * "failed_credentials"`, `Retry-After`) until its window ends, before anything is looked up: a
 * guesser gets that many tries a minute. A good client behind the same address is told when to
 * come back, and the SDK and `notify` retry a `429 rate_limited` after `Retry-After`. Only
 * `unauthorized` counts: a revoked or expired token is a known one, not a guess.
 */
export class FailedCredentialLimit {
  readonly #windows: MinuteWindows;

  constructor(perMinute: number, clock: Clock) {
    this.#windows = new MinuteWindows(perMinute, clock);
  }

  /** Throws `429 rate_limited` while `address` is over the limit. */
  check(address: string): void {
    const retryAfter = this.#windows.full(address);
    if (retryAfter === undefined) return;
    throw new ApiError(
      'rate_limited',
      'too many unknown credentials from this address in the last minute; retry after Retry-After',
      {
        headers: { 'retry-after': String(retryAfter) },
        details: { scope: 'failed_credentials', limit: this.#windows.perMinute },
      },
    );
  }

  failed(address: string): void {
    this.#windows.count(address);
  }
}
