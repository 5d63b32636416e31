import { type ERROR_CODES, type ErrorCode, errorBodySchema, type StatusRecord } from './contract/index.js';
import { parseJson } from './internal/json.js';

/** One try of a request, as the error that ends the call reports it. */
export interface Attempt {
  /** The `X-Request-Id` the service responded with, when it responded. */
  requestId?: string;
  status?: number;
  code?: string;
  /** Set when the attempt got no HTTP status. */
  failure?: 'network' | 'timeout';
}

/**
 * The kinds of an error travel with it under a global symbol, so that `instanceof` holds across
 * copies of this module: the ESM and the CJS build loaded in one process, or two installs of
 * the SDK, still recognise each other's errors.
 */
const KINDS = Symbol.for('foxbell.error.kinds');

type Branded = { [KINDS]?: readonly string[] };

/** What every error takes besides its message: what caused it, and the tries made before it. */
export interface ErrorOptions {
  cause?: unknown;
  /** Every try made before this error ended the call, oldest first; none for a `ValidationError`. */
  attempts?: readonly Attempt[];
}

// The errors' members are `declare`d and set by each constructor: as class fields they would each
// be defined once more before the constructor runs, and an app's bundle would carry their names twice.
export class FoxbellError extends Error {
  static readonly kind: string = 'FoxbellError';
  /** The spec's error code, or for failures without a response `connection_error`, `timeout`, `aborted`. */
  declare readonly code: string;
  /** Every try made before this error ended the call, oldest first. */
  declare readonly attempts: readonly Attempt[];
  declare readonly [KINDS]: readonly string[];

  constructor(code: string, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.attempts = options.attempts ?? [];
    const kinds: string[] = [];
    for (let type: unknown = new.target; typeof type === 'function' && type !== Error; ) {
      if (Object.hasOwn(type, 'kind')) kinds.push((type as typeof FoxbellError).kind);
      type = Object.getPrototypeOf(type);
    }
    Object.defineProperty(this, KINDS, { value: kinds });
    this.name = kinds[0] ?? 'FoxbellError';
  }

  /**
   * An error of this class from any copy of the SDK (by its kinds), and anything this class's
   * prototype is on the chain of, as for any class: `RateLimitError.prototype instanceof ApiError`.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof.
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    const kinds = (value as Branded | null | undefined)?.[KINDS];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof.
    return Array.isArray(kinds) && kinds.includes(this.kind);
  }
}

/** The client rejected a request before sending it: nothing was sent. Same `code` and `field` the server would respond. */
export class ValidationError extends FoxbellError {
  static override readonly kind: string = 'ValidationError';
  declare readonly code: ErrorCode;
  declare readonly field: string | undefined;
  declare readonly details: Record<string, unknown> | undefined;

  constructor(error: {
    code: ErrorCode;
    message: string;
    field?: string;
    details?: Record<string, unknown>;
  }) {
    super(error.code, error.message);
    this.field = error.field;
    this.details = error.details;
  }
}

/**
 * Why a connection failed: refused (nothing listens there), its host name did not resolve, the
 * TLS handshake failed, the connection was reset, connecting timed out, or the network has no
 * route to it.
 */
export type ConnectionReason = 'refused' | 'dns' | 'tls' | 'reset' | 'connect_timeout' | 'unreachable';

/** No HTTP status: the connection failed or broke. */
export class ConnectionError extends FoxbellError {
  static override readonly kind: string = 'ConnectionError';
  /** The service address the client could not reach. */
  declare readonly baseUrl: string | undefined;
  /** Why, when the runtime's error says; undefined when it says nothing we recognise. */
  declare readonly reason: ConnectionReason | undefined;
  constructor(
    message: string,
    options: ErrorOptions & { baseUrl?: string | undefined; reason?: ConnectionReason | undefined } = {},
  ) {
    super('connection_error', message, options);
    this.baseUrl = options.baseUrl;
    this.reason = options.reason;
  }
}

/** An attempt got no complete response within the timeout, or `waitFor` ran out of time. */
export class TimeoutError extends FoxbellError {
  static override readonly kind: string = 'TimeoutError';
  /** From `waitFor`: the last status record it saw. */
  declare readonly record: StatusRecord | undefined;
  constructor(message: string, options: ErrorOptions & { record?: StatusRecord } = {}) {
    super('timeout', message, options);
    this.record = options.record;
  }
}

/**
 * `waitFor`: the status waited for can no longer come, so the wait ended at once. The
 * notification was dropped (`record.reason` says why), or every device's push has ended without
 * reaching it (each destination's `state`, and `reason` once it is `failed_permanent`:
 * `pushFailureInWords` of `@foxbell/sdk/contract` says it in words with what to do).
 */
export class UndeliverableError extends FoxbellError {
  static override readonly kind: string = 'UndeliverableError';
  /** The status record that showed it. */
  declare readonly record: StatusRecord;
  constructor(message: string, options: ErrorOptions & { record: StatusRecord }) {
    super('undeliverable', message, options);
    this.record = options.record;
  }
}

/** The caller's `AbortSignal` fired. */
export class AbortError extends FoxbellError {
  static override readonly kind: string = 'AbortError';
  constructor(options?: ErrorOptions) {
    super('aborted', 'The request was aborted', options);
  }
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  field?: string | undefined;
  details?: Record<string, unknown> | undefined;
  requestId?: string | undefined;
  retryAfter?: number | undefined;
  headers: Record<string, string>;
  attempts?: readonly Attempt[];
}

/** The service responded with an error status. */
export class ApiError extends FoxbellError {
  static override readonly kind: string = 'ApiError';
  declare readonly status: number;
  declare readonly field: string | undefined;
  declare readonly details: Record<string, unknown> | undefined;
  declare readonly requestId: string | undefined;
  /** `Retry-After` in seconds, when the response carried a valid one. */
  declare readonly retryAfter: number | undefined;
  /** The response headers, lower-cased names. */
  declare readonly headers: Readonly<Record<string, string>>;

  constructor(init: ApiErrorInit) {
    super(init.code, init.message, init.attempts === undefined ? {} : { attempts: init.attempts });
    this.status = init.status;
    this.field = init.field;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.headers = init.headers;
  }
}

/** 400, 413, 415, 422: the request must change before it can succeed. */
export class InvalidRequestError extends ApiError {
  static override readonly kind: string = 'InvalidRequestError';
}
/** 401: no valid credential (unknown, revoked, expired, rotated, deleted…). */
export class AuthenticationError extends ApiError {
  static override readonly kind: string = 'AuthenticationError';
}
/** 403: a valid credential not allowed here (wrong route, read scope off, scene outside the allowlist). */
export class PermissionError extends ApiError {
  static override readonly kind: string = 'PermissionError';
}
/** 404: no such resource, or not visible to this token. */
export class NotFoundError extends ApiError {
  static override readonly kind: string = 'NotFoundError';
}
/** 409: the request conflicts with the state of the service (an idempotency key reused…). */
export class ConflictError extends ApiError {
  static override readonly kind: string = 'ConflictError';
}
/** 429 `rate_limited`: too many sends in a short time; retried by the client. */
export class RateLimitError extends ApiError {
  static override readonly kind: string = 'RateLimitError';
}
/** 429 `quota_exceeded`: the monthly quota is used up; never retried. */
export class QuotaExceededError extends ApiError {
  static override readonly kind: string = 'QuotaExceededError';
  /** When the quota resets (start of the next UTC month), from `X-RateLimit-Reset`. */
  declare readonly resetAt: Date | undefined;
  constructor(init: ApiErrorInit) {
    super(init);
    const reset = Number(init.headers['x-ratelimit-reset']);
    this.resetAt = Number.isSafeInteger(reset) && reset > 0 ? new Date(reset * 1000) : undefined;
  }
}
/** 5xx: a fault of the service or of a proxy in front of it. */
export class ServerError extends ApiError {
  static override readonly kind: string = 'ServerError';
}

/** `Retry-After` as whole seconds; a date or anything malformed is ignored (the spec allows only integers). */
export function parseRetryAfter(value: string | null | undefined): number | undefined {
  if (value == null || !/^\s*\d{1,9}\s*$/.test(value)) return undefined;
  return Number(value);
}

/** The code a body without `error.code` stands for (the spec's Errors, rule 2, for 429 and 5xx). */
function assumedCode(status: number): string {
  return (
    (ASSUMED_CODES as Readonly<Record<number, ErrorCode>>)[status >= 500 ? 503 : status] ?? 'unknown_error'
  );
}

/** Each code of `ERROR_CODES` marked `standsForStatus`, under its status. */
type AssumedCodes = {
  [Code in ErrorCode as (typeof ERROR_CODES)[Code] extends { standsForStatus: true }
    ? (typeof ERROR_CODES)[Code]['status']
    : never]: Code;
};

/**
 * For each status, the code of `ERROR_CODES` marked as what a response of it means without a code.
 * Typed from the table, so it cannot differ from it, but written out: read from the table when
 * the module loads, it made an app's bundle carry all of the table (0.2 KB min+gzip).
 */
const ASSUMED_CODES: AssumedCodes = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

type ErrorClass = new (init: ApiErrorInit) => ApiError;
type ErrorStatus = (typeof ERROR_CODES)[ErrorCode]['status'];

/**
 * The class of each status of `ERROR_CODES`. Typed over them: a status added to the table does
 * not compile until it has a class here. 429 and 5xx are decided by code and range below.
 */
const CLASS_BY_STATUS: Readonly<Record<Exclude<ErrorStatus, 429 | 500 | 503>, ErrorClass>> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  410: ApiError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  422: InvalidRequestError,
};

function classFor(status: number, code: string): ErrorClass {
  if (status === 429) {
    if (code === 'quota_exceeded') return QuotaExceededError;
    if (code === 'rate_limited') return RateLimitError;
    return ApiError;
  }
  if (status >= 500) return ServerError;
  return (CLASS_BY_STATUS as Readonly<Record<number, ErrorClass>>)[status] ?? ApiError;
}

/** What an error response says, read once: its class is chosen when the call ends. */
export function apiErrorInit(
  status: number,
  headers: Record<string, string>,
  bodyText: string,
): ApiErrorInit {
  const json = parseJson(bodyText);
  const parsed = errorBodySchema.safeParse(json);
  const body = parsed.success ? parsed.data : undefined;
  // A gateway's own 429 body is `{ message }` (the spec's Errors, rule 2).
  const gatewayMessage = (json as { message?: unknown } | null | undefined)?.message;
  const code = body?.error.code ?? assumedCode(status);
  const message =
    body?.error.message ??
    (typeof gatewayMessage === 'string' ? gatewayMessage : `The service answered ${status} (${code})`);
  return {
    status,
    code,
    message,
    field: body?.error.field,
    details: body?.error.details,
    requestId: body?.request_id ?? headers['x-request-id'],
    retryAfter: parseRetryAfter(headers['retry-after']),
    headers,
  };
}

/** The one factory that turns an error response into an error value. */
export function apiErrorFrom(init: ApiErrorInit): ApiError {
  const ErrorClass = classFor(init.status, init.code);
  return new ErrorClass(init);
}
