/**
 * The spec's client retry policy (Errors, rule 3) as pure functions: what to retry and how
 * long to wait. The request loop (internal/request.ts) only carries out what `decideRetry` says.
 */
import type { ConnectionReason } from './errors.js';

/** At most this many retries after the first attempt, whatever the caller asks. */
export const MAX_RETRIES = 3;
/** Waits without `Retry-After`: 1, 2, then 4 seconds. */
export const BACKOFF_MS = [1_000, 2_000, 4_000] as const;
/** "A little jitter" added to the backoff waits, at most this much. */
export const MAX_JITTER_MS = 250;
/** A wait longer than this ends the call instead. */
export const MAX_WAIT_MS = 60_000;
/** Per-attempt timeout: headers and body must arrive within it. */
export const ATTEMPT_TIMEOUT_MS = 30_000;

export type RetryReason = 'rate_limited' | 'server_error' | 'network' | 'timeout';

/** What `onRetry` is told before each retry. */
export interface RetryInfo {
  /** 1 for the first retry, up to 3. */
  attempt: number;
  waitMs: number;
  reason: RetryReason;
  /** The status of the attempt that failed, when it got one. */
  status?: number;
  code?: string;
  requestId?: string;
}

export type StopReason =
  | 'not_retryable'
  | 'quota_exceeded'
  | 'retries_exhausted'
  | 'wait_exceeds_cap'
  | 'deadline';

export interface AttemptOutcome {
  /** Retries already made (0 after the first attempt). */
  retriesDone: number;
  /** The HTTP status, when the attempt got one. */
  status?: number;
  /** `error.code` of the body, or the code the spec says to assume. */
  code?: string;
  /** `Retry-After` in whole seconds, when present and valid. */
  retryAfter?: number;
  /** Set when there was no HTTP status. */
  failure?: 'network' | 'timeout';
  /** For a network failure: why the connection failed, when the runtime's error says. */
  connection?: ConnectionReason | undefined;
}

export interface RetryLimits {
  maxRetries: number;
  /** Milliseconds left before the caller's overall deadline, if it set one. */
  remainingMs?: number;
  /** A number in [0, 1) that picks the jitter. */
  random: number;
}

export type RetryDecision =
  | { retry: true; waitMs: number; reason: RetryReason }
  | { retry: false; reason: StopReason };

/** Why an outcome may be retried at all, or undefined when it may not. */
export function retryReason(outcome: AttemptOutcome): RetryReason | undefined {
  // The policy retries only what it names, and need not retry all of it: a certificate this
  // machine does not trust, or a handshake TLS rejected, fails the same way on every attempt.
  if (outcome.failure === 'network' && outcome.connection === 'tls') return undefined;
  if (outcome.failure) return outcome.failure;
  const { status, code } = outcome;
  if (status === undefined) return undefined;
  if (status === 429) return code === 'rate_limited' ? 'rate_limited' : undefined;
  return status >= 500 ? 'server_error' : undefined;
}

export function decideRetry(outcome: AttemptOutcome, limits: RetryLimits): RetryDecision {
  const reason = retryReason(outcome);
  if (!reason)
    return { retry: false, reason: outcome.code === 'quota_exceeded' ? 'quota_exceeded' : 'not_retryable' };
  const allowed = Math.min(Math.max(Math.trunc(limits.maxRetries), 0), MAX_RETRIES);
  if (outcome.retriesDone >= allowed) return { retry: false, reason: 'retries_exhausted' };
  const waitMs =
    outcome.retryAfter !== undefined
      ? outcome.retryAfter * 1_000
      : (BACKOFF_MS[outcome.retriesDone] ?? MAX_WAIT_MS) + Math.floor(limits.random * MAX_JITTER_MS);
  if (waitMs > MAX_WAIT_MS) return { retry: false, reason: 'wait_exceeds_cap' };
  if (limits.remainingMs !== undefined && waitMs >= limits.remainingMs)
    return { retry: false, reason: 'deadline' };
  return { retry: true, waitMs, reason };
}
