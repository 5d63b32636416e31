// The zod-free values: reading the settings loads no rules (test/config).
import { SERVICE_LIMITS } from '@foxbell/sdk/contract/values';

/**
 * Every limit of the service, in one place: the spec's rate limits and quota (which the store
 * admits sends by), the account's sizes, and the brakes of this process. Defaults are the spec's;
 * operators and benchmarks may change them (`--rate-per-token` and the rest).
 */

/** The per-minute windows and the monthly quota a send is admitted by. */
export interface RateLimits {
  perTokenPerMinute: number;
  perAccountPerMinute: number;
  perAccountPerMonth: number;
}

export interface ServiceLimits extends RateLimits {
  devicesPerAccount: number;
  tokensPerAccount: number;
  /**
   * Sends being stored at once in this process. Past it a send is shed at once with `503` and
   * `Retry-After: 1` instead of queueing: under overload the queue, and every client's wait, would
   * otherwise grow without end.
   */
  sendsInFlight: number;
  /** Management writes (devices, tokens, key, account) per account per minute. */
  managementWritesPerMinute: number;
  /** Reports of a notification opened or cleared, per account per minute. */
  eventsPerMinute: number;
  /** Unknown credentials per client address per minute, before its requests are rejected for a while. */
  failedCredentialsPerMinute: number;
  /** How long a link code can be approved (`--link-code-seconds`). */
  linkCodeMs: number;
  /** The window the link brakes below count in. */
  linkWindowMs: number;
  /** Link requests (no credential) per client address per window. */
  linkRequestsPerWindow: number;
  /** Links an account approves per window; the next is `limit_reached` (`link_approvals`). */
  linkApprovalsPerWindow: number;
  /** Wrong codes an account may give per window; the next approval is `link_locked`. */
  wrongLinkCodesPerWindow: number;
  /**
   * How long a Web Push device may go unseen (its app not opened) before it is called stale: iOS
   * drops a web app's subscription without a word (its icon deleted, its pushes judged silent).
   */
  deviceStaleMs: number;
}

export const DEFAULT_LIMITS: ServiceLimits = {
  perTokenPerMinute: SERVICE_LIMITS.sendsPerTokenPerMinute,
  perAccountPerMinute: SERVICE_LIMITS.sendsPerAccountPerMinute,
  perAccountPerMonth: SERVICE_LIMITS.sendsPerAccountPerMonth,
  devicesPerAccount: SERVICE_LIMITS.devicesPerAccount,
  tokensPerAccount: SERVICE_LIMITS.tokensPerAccount,
  sendsInFlight: 1000,
  managementWritesPerMinute: 60,
  eventsPerMinute: 120,
  failedCredentialsPerMinute: 30,
  linkCodeMs: 600_000,
  linkWindowMs: 600_000,
  linkRequestsPerWindow: 30,
  linkApprovalsPerWindow: 5,
  wrongLinkCodesPerWindow: 5,
  deviceStaleMs: 30 * 86_400_000,
};
