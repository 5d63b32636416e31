import type { FoxbellError } from './errors.js';
import type { RetryInfo } from './retry.js';

/**
 * What a request is, for a trace or a metric: its method and the interface's route, ids and
 * secrets in it replaced (`/v1/notifications/{id}/status`), so spans group by endpoint and never
 * carry a token or an id.
 */
export interface RequestCall {
  /** The same for every event of one call (its attempts, retries and end), unique in the process. */
  callId: number;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  route: string;
}

/** Hooks for tracing and metrics: each is told of one step of each call. A hook that throws is ignored. */
export interface RequestHooks {
  /** An attempt is about to be sent (`attempt` 1 is the first). */
  onRequest?: (event: RequestCall & { attempt: number }) => void;
  /** An attempt got a response, whatever its status; `durationMs` is that attempt's. */
  onResponse?: (
    event: RequestCall & {
      attempt: number;
      status: number;
      requestId: string | undefined;
      durationMs: number;
    },
  ) => void;
  /** A retry is about to wait (`waitMs`), and why. */
  onRetry?: (event: RequestCall & RetryInfo) => void;
  /** The call failed, after `attempts` attempts (a validation error, which sends nothing, is not one). */
  onError?: (event: RequestCall & { error: FoxbellError; attempts: number; durationMs: number }) => void;
}
