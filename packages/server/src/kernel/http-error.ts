import { type ErrorCode, type FieldError, statusOf } from '@foxbell/sdk/contract';

/**
 * An error the interface defines: thrown anywhere in a request and turned into the spec's error
 * body by the error handler. The status always comes from the contract's code table.
 */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.status = statusOf(code);
    this.field = options.field;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  static fromField(error: FieldError): HttpError {
    return new HttpError(error.code, error.message, {
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.details ? { details: error.details } : {}),
    });
  }
}

/** The value of a check that passed, or the error of one that did not. */
export function valueOrThrow<T>(result: { ok: true; value: T } | { ok: false; error: FieldError }): T {
  if (!result.ok) throw HttpError.fromField(result.error);
  return result.value;
}

/** The spec's error body. */
export function errorBody(
  code: ErrorCode,
  message: string,
  requestId: string,
  field?: string,
  details?: Record<string, unknown>,
) {
  return {
    error: { code, message, ...(field === undefined ? {} : { field }), ...(details ? { details } : {}) },
    request_id: requestId,
  };
}
