import ky, { isNetworkError, type KyInstance } from 'ky';
import {
  AbortError,
  type Attempt,
  apiErrorFrom,
  apiErrorInit,
  ConnectionError,
  type ConnectionReason,
  type FoxbellError,
  TimeoutError,
} from '../errors.js';
import type { RequestCall, RequestHooks } from '../hooks.js';
import { decideRetry, type RetryInfo } from '../retry.js';
import type { Log } from './log.js';

export interface Transport {
  ky: KyInstance;
  /** The service's address, as errors name it. */
  baseUrl: string;
  /** What sends each request ky builds: the caller's fetch, else the global one when called. */
  fetch: typeof fetch | undefined;
  maxRetries: number;
  timeoutMs: number;
  random: () => number;
  onRetry: ((info: RetryInfo) => void) | undefined;
  log: Log | undefined;
  /**
   * Where a wait of LONG_WAIT_MS or more is said when no log was asked for (console.warn), since
   * nothing else would tell why the call is slow; undefined when the caller chose a log, or none.
   */
  announceLongWait: ((message: string) => void) | undefined;
  /** The caller's tracing and metrics hooks; none costs nothing. */
  hooks: RequestHooks | undefined;
}

/** A retry's wait at least this long (a 429's Retry-After of a minute, say) is announced. */
export const LONG_WAIT_MS = 5_000;

/**
 * A transport to `baseUrl` with these settings. ky only sends (no retries, no thrown HTTP errors,
 * no timeout of its own): the policy and the attempt timeout are `send`'s.
 */
export function newTransport(baseUrl: string, settings: Omit<Transport, 'ky' | 'baseUrl'>): Transport {
  return {
    baseUrl,
    ky: ky.create({ prefix: baseUrl, retry: 0, throwHttpErrors: false, timeout: false }),
    ...settings,
  };
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to the base URL, without a leading slash. */
  path: string;
  headers: Record<string, string>;
  /** Sent as these exact bytes on every attempt. */
  body?: Uint8Array<ArrayBuffer>;
  signal?: AbortSignal | undefined;
  /** Epoch milliseconds after which no retry starts. */
  deadline?: number | undefined;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** How an attempt that got no response ended. */
type Failure = {
  failure: 'network' | 'timeout' | 'aborted';
  message: string;
  cause: unknown;
  /** For a network failure: why, when fetch's error tells. */
  reason?: ConnectionReason | undefined;
};

/**
 * Sends a request under the spec's retry policy and returns the first success; throws the error
 * that ended the call, carrying every attempt. The policy lives in `decideRetry`, the loop here
 * only carries it out.
 */
export async function send(transport: Transport, request: HttpRequest): Promise<HttpResponse> {
  const { hooks } = transport;
  if (hooks === undefined) return attemptAll(transport, request, undefined);
  calls += 1;
  const call: RequestCall = { callId: calls, method: request.method, route: routeOf(request.path) };
  const started = Date.now();
  try {
    return await attemptAll(transport, request, { hooks, call });
  } catch (error) {
    const failed = error as FoxbellError;
    callHook(hooks.onError, {
      ...call,
      error: failed,
      attempts: failed.attempts.length,
      durationMs: Date.now() - started,
    });
    throw error;
  }
}

/** Calls traced in this process so far: each gets the next number as its `callId`. */
let calls = 0;

/** The interface's path of a request, ids and secrets in it replaced by `{id}` and `{token}`. */
export function routeOf(path: string): string {
  const segments = (path.split('?')[0] as string).split('/');
  return `/${segments
    .map((segment, index) => {
      const before = segments[index - 1];
      if (before === 'send') return '{token}';
      return before !== undefined && ID_AFTER.has(before) && index > 1 ? '{id}' : segment;
    })
    .join('/')}`;
}

/** Collections whose next path segment is an id. */
const ID_AFTER = new Set(['notifications', 'link-requests', 'tokens', 'devices']);

/** A hook that throws is the caller's bug, not the call's: the request goes on. */
function callHook<Event>(hook: ((event: Event) => void) | undefined, event: Event): void {
  if (hook === undefined) return;
  try {
    hook(event);
  } catch {}
}

async function attemptAll(
  transport: Transport,
  request: HttpRequest,
  traced: { hooks: RequestHooks; call: RequestCall } | undefined,
): Promise<HttpResponse> {
  const attempts: Attempt[] = [];
  const { log } = transport;
  // The address in full (a send token is never part of a path the SDK requests).
  const what = `${request.method} ${transport.baseUrl}/${request.path.split('?')[0]}`;
  for (let retriesDone = 0; ; retriesDone++) {
    const started = Date.now();
    log?.('debug', `${what}: attempt ${retriesDone + 1} of ${transport.maxRetries + 1}`, {
      method: request.method,
      path: `/${request.path}`,
      attempt: retriesDone + 1,
    });
    if (traced) callHook(traced.hooks.onRequest, { ...traced.call, attempt: retriesDone + 1 });
    const result = await attempt(transport, request);
    const ms = Date.now() - started;
    if (traced && 'status' in result) {
      callHook(traced.hooks.onResponse, {
        ...traced.call,
        attempt: retriesDone + 1,
        status: result.status,
        requestId: result.headers.get('x-request-id') ?? undefined,
        durationMs: ms,
      });
    }
    if ('status' in result) {
      log?.('info', `${what}: ${result.status} in ${ms} ms`, {
        status: result.status,
        requestId: result.headers.get('x-request-id') ?? undefined,
        attempt: retriesDone + 1,
        ms,
      });
    } else {
      log?.('info', `${what}: no response (${result.failure}) after ${ms} ms`, {
        failure: result.failure,
        attempt: retriesDone + 1,
        ms,
      });
    }
    if ('status' in result && result.status < 400) return result;
    const failed = failedAttempt(result, transport.baseUrl);
    attempts.push(failed.record);
    if ('failure' in result && result.failure === 'aborted') throw failed.endWith(attempts);

    const decision = decideRetry(
      {
        retriesDone,
        ...failed.record,
        ...(failed.retryAfter === undefined ? {} : { retryAfter: failed.retryAfter }),
        ...(failed.connection === undefined ? {} : { connection: failed.connection }),
      },
      {
        maxRetries: transport.maxRetries,
        random: transport.random(),
        ...(request.deadline === undefined ? {} : { remainingMs: request.deadline - Date.now() }),
      },
    );
    if (!decision.retry) {
      log?.('info', `${what}: not retried (${decision.reason})`, {
        reason: decision.reason,
        attempts: attempts.length,
      });
      throw failed.endWith(attempts);
    }
    log?.('warn', `${what}: retry ${retriesDone + 1} in ${decision.waitMs} ms (${decision.reason})`, {
      retry: retriesDone + 1,
      waitMs: decision.waitMs,
      reason: decision.reason,
      ...failed.record,
    });
    if (decision.waitMs >= LONG_WAIT_MS) {
      transport.announceLongWait?.(
        `foxbell: ${what}: waiting ${Math.round(decision.waitMs / 1000)} s before retry ${retriesDone + 1} (${failed.record.code ?? decision.reason}${failed.retryAfter === undefined ? '' : ", the service's Retry-After"}); pass logLevel: 'off' to keep this quiet`,
      );
    }
    const retry: RetryInfo = {
      attempt: retriesDone + 1,
      waitMs: decision.waitMs,
      reason: decision.reason,
      // An attempt with a response's record is its status, code and request id; a failure has none of them.
      ...(failed.record.failure ? {} : failed.record),
    };
    transport.onRetry?.(retry);
    if (traced) callHook(traced.hooks.onRetry, { ...traced.call, ...retry });
    try {
      await sleep(decision.waitMs, request.signal);
    } catch {
      throw new AbortError({ cause: request.signal?.reason, attempts });
    }
  }
}

/**
 * What an attempt that did not succeed was: its record in `attempts`, the `Retry-After` it
 * carried, and the error it ends the call with. An aborted attempt is recorded as the network
 * failure it looks like to the service.
 */
function failedAttempt(
  result: HttpResponse | Failure,
  baseUrl: string,
): {
  record: Attempt;
  retryAfter?: number | undefined;
  /** For a network failure: why the connection failed, which the retry policy reads. */
  connection?: ConnectionReason | undefined;
  endWith: (attempts: readonly Attempt[]) => FoxbellError;
} {
  if ('status' in result) {
    const init = apiErrorInit(result.status, Object.fromEntries(result.headers), result.text);
    return {
      record: {
        status: init.status,
        code: init.code,
        ...(init.requestId === undefined ? {} : { requestId: init.requestId }),
      },
      retryAfter: init.retryAfter,
      endWith: (attempts) => apiErrorFrom({ ...init, attempts }),
    };
  }
  const { failure, message, cause, reason } = result;
  return {
    record: { failure: failure === 'timeout' ? 'timeout' : 'network' },
    connection: reason,
    endWith: (attempts) => {
      if (failure === 'aborted') return new AbortError({ cause, attempts });
      if (failure === 'timeout') return new TimeoutError(message, { cause, attempts });
      return new ConnectionError(message, { cause, attempts, baseUrl, reason });
    },
  };
}

/** One try: the timeout covers the headers and the whole body. */
async function attempt(transport: Transport, request: HttpRequest): Promise<HttpResponse | Failure> {
  if (request.signal?.aborted) return { failure: 'aborted', message: '', cause: request.signal.reason };
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), transport.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
  try {
    // ky builds the request (URL, headers, hooks) without the body and without a signal, and this
    // fetch sends it with the body's bytes and our signal. Given to ky, the body would become a
    // stream teed for retries ky never makes and the signal an AbortSignal.any of ky's own: that
    // work doubled the time of a send on loopback (docs/performance.md, sdk-overhead).
    const sendWith = transport.fetch ?? globalThis.fetch;
    const response = await transport.ky(request.path, {
      method: request.method,
      headers: request.headers,
      // ky hands its fetch the Request it built, never a URL.
      fetch: (built) =>
        sendWith((built as Request).url, {
          method: (built as Request).method,
          headers: (built as Request).headers,
          ...(request.body ? { body: request.body } : {}),
          signal,
        }),
    });
    const text = await readText(response, signal);
    return { status: response.status, headers: response.headers, text };
  } catch (thrown) {
    // ky wraps fetch's own failure in a NetworkError that holds the Request, and with it the
    // Authorization header: only what fetch threw becomes our error's cause.
    const cause = isNetworkError(thrown) ? thrown.cause : thrown;
    if (request.signal?.aborted) return { failure: 'aborted', message: '', cause };
    if (timeout.signal.aborted) {
      return { failure: 'timeout', message: `No complete response within ${transport.timeoutMs} ms`, cause };
    }
    return { failure: 'network', ...connectionFailure(transport.baseUrl, cause), cause };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads the body, giving up when the signal fires. Not every fetch ties the body stream to the
 * request's signal (mocks and some polyfills do not), so the race is made here.
 */
function readText(response: Response, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      response.body?.cancel().catch(() => {});
      reject(signal.reason);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    response.text().then(
      (text) => {
        signal.removeEventListener('abort', onAbort);
        resolve(text);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Why a connection failed, by the error code Node (or the message another runtime) gives. Each
 * pattern is the shortest that matches the same texts, as an app's bundle carries it: `refused`
 * matches ECONNREFUSED and ConnectionRefused, `CERT` certificate, `reset` ECONNRESET,
 * `timed? ?out` ETIMEDOUT and UND_ERR_CONNECT_TIMEOUT, and `unreach` ENETUNREACH, EHOSTUNREACH and
 * unreachable (case aside).
 */
const CONNECTION_FAILURES: [RegExp, ConnectionReason, string][] = [
  [/refused/i, 'refused', 'connection refused'],
  [/ENOTFOUND|EAI_AGAIN|EAI_NONAME|dns|not known|resolve/i, 'dns', 'its host name did not resolve (DNS)'],
  [/CERT|TLS|SSL|self.signed/i, 'tls', 'the TLS handshake failed (its certificate was not trusted)'],
  [/EPIPE|UND_ERR_SOCKET|reset|hang up|closed/i, 'reset', 'the connection was reset'],
  [/timed? ?out/i, 'connect_timeout', 'the connection timed out'],
  [/unreach/i, 'unreachable', 'the network cannot reach it'],
];

/**
 * "Could not reach https://foxbell.example.com: connection refused (ECONNREFUSED)": the address
 * and the reason, from fetch's error and its cause (never the request, which holds the token);
 * and the reason again as data, for code that acts on it.
 */
function connectionFailure(
  baseUrl: string,
  cause: unknown,
): { message: string; reason: ConnectionReason | undefined } {
  const inner = (cause as { cause?: unknown } | undefined)?.cause;
  const code = [inner, cause]
    .map((error) => (error as { code?: unknown } | undefined)?.code)
    .find((value): value is string => typeof value === 'string');
  const text = [code, (inner as Error | undefined)?.message, (cause as Error | undefined)?.message]
    .filter((part): part is string => typeof part === 'string')
    .join(' ');
  // The code first: a reset during the handshake is ECONNRESET, whatever its message says of TLS.
  const [, reason, words] =
    CONNECTION_FAILURES.find(([pattern]) => code !== undefined && pattern.test(code)) ??
    CONNECTION_FAILURES.find(([pattern]) => pattern.test(text)) ??
    [];
  const detail = words ?? (inner as Error | undefined)?.message ?? (cause as Error | undefined)?.message;
  return {
    message: `Could not reach ${baseUrl}${detail ? `: ${detail}` : ''}${code && words ? ` (${code})` : ''}`,
    reason,
  };
}

/** Waits, or rejects with AbortError as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError({ cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError({ cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
