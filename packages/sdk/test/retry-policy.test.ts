import { describe, expect, it } from 'vitest';
import { type AttemptOutcome, decideRetry, type RetryDecision } from '../src/retry.js';

const limits = { maxRetries: 3, random: 0 };

describe('decideRetry: what is retried', () => {
  it.each<[string, AttemptOutcome, RetryDecision]>([
    ['429 rate_limited', { retriesDone: 0, status: 429, code: 'rate_limited' }, retry(1000, 'rate_limited')],
    ['429 quota_exceeded', { retriesDone: 0, status: 429, code: 'quota_exceeded' }, stop('quota_exceeded')],
    [
      '429 link_locked (another 4xx code)',
      { retriesDone: 0, status: 429, code: 'link_locked' },
      stop('not_retryable'),
    ],
    [
      '500 internal_error',
      { retriesDone: 0, status: 500, code: 'internal_error' },
      retry(1000, 'server_error'),
    ],
    [
      '502 from a proxy',
      { retriesDone: 0, status: 502, code: 'service_unavailable' },
      retry(1000, 'server_error'),
    ],
    [
      '503 service_unavailable',
      { retriesDone: 0, status: 503, code: 'service_unavailable' },
      retry(1000, 'server_error'),
    ],
    [
      '504 from a proxy',
      { retriesDone: 0, status: 504, code: 'service_unavailable' },
      retry(1000, 'server_error'),
    ],
    ['a network failure', { retriesDone: 0, failure: 'network' }, retry(1000, 'network')],
    [
      'a connection reset',
      { retriesDone: 0, failure: 'network', connection: 'reset' },
      retry(1000, 'network'),
    ],
    [
      'a certificate not trusted, or a TLS handshake refused: the same on every attempt',
      { retriesDone: 0, failure: 'network', connection: 'tls' },
      stop('not_retryable'),
    ],
    ['a timeout', { retriesDone: 0, failure: 'timeout' }, retry(1000, 'timeout')],
    ...[400, 401, 403, 404, 409, 410, 413, 415, 422].map(
      (status): [string, AttemptOutcome, RetryDecision] => [
        `${status}`,
        { retriesDone: 0, status, code: 'x' },
        stop('not_retryable'),
      ],
    ),
  ])('%s', (_name, outcome, expected) => {
    expect(decideRetry(outcome, limits)).toEqual(expected);
  });
});

describe('decideRetry: how long to wait', () => {
  it('waits 1, 2, then 4 seconds, then gives up', () => {
    const waits = [0, 1, 2, 3].map((retriesDone) => decideRetry({ retriesDone, status: 503 }, limits));
    expect(waits).toEqual([
      retry(1000, 'server_error'),
      retry(2000, 'server_error'),
      retry(4000, 'server_error'),
      stop('retries_exhausted'),
    ]);
  });

  it('adds under 250 ms of jitter to the backoff', () => {
    expect(decideRetry({ retriesDone: 2, failure: 'network' }, { ...limits, random: 0.9999 })).toEqual(
      retry(4249, 'network'),
    );
  });

  it('waits Retry-After exactly, without jitter', () => {
    expect(
      decideRetry(
        { retriesDone: 0, status: 429, code: 'rate_limited', retryAfter: 7 },
        { ...limits, random: 0.5 },
      ),
    ).toEqual(retry(7000, 'rate_limited'));
  });

  it('waits a Retry-After of 0 as 0', () => {
    expect(decideRetry({ retriesDone: 1, status: 503, retryAfter: 0 }, limits)).toEqual(
      retry(0, 'server_error'),
    );
  });

  it('waits a Retry-After of exactly 60 seconds', () => {
    expect(decideRetry({ retriesDone: 0, status: 503, retryAfter: 60 }, limits)).toEqual(
      retry(60_000, 'server_error'),
    );
  });

  it('gives up when Retry-After is past 60 seconds', () => {
    expect(decideRetry({ retriesDone: 0, status: 503, retryAfter: 61 }, limits)).toEqual(
      stop('wait_exceeds_cap'),
    );
  });

  it('lowers the retry count to maxRetries but never raises it past 3', () => {
    expect(decideRetry({ retriesDone: 1, status: 503 }, { ...limits, maxRetries: 1 })).toEqual(
      stop('retries_exhausted'),
    );
    expect(decideRetry({ retriesDone: 0, status: 503 }, { ...limits, maxRetries: 0 })).toEqual(
      stop('retries_exhausted'),
    );
    expect(decideRetry({ retriesDone: 3, status: 503 }, { ...limits, maxRetries: 10 })).toEqual(
      stop('retries_exhausted'),
    );
  });

  it('does not start a wait that would end past the deadline', () => {
    expect(decideRetry({ retriesDone: 1, status: 503 }, { ...limits, remainingMs: 2000 })).toEqual(
      stop('deadline'),
    );
    expect(decideRetry({ retriesDone: 1, status: 503 }, { ...limits, remainingMs: 2001 })).toEqual(
      retry(2000, 'server_error'),
    );
  });
});

function retry(waitMs: number, reason: string): RetryDecision {
  return { retry: true, waitMs, reason } as RetryDecision;
}

function stop(reason: string): RetryDecision {
  return { retry: false, reason } as RetryDecision;
}
