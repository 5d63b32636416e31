/**
 * Every error code of the interface with its HTTP status: the one table that the SDK's error
 * classes, the server's error bodies and docs/errors.md all follow. What a person should do about
 * each is notify's advice, in its error-advice.ts, so that an app's bundle of the SDK does not
 * carry it. `standsForStatus` marks the code a response of that status means when its body names
 * none (a proxy's or a gateway's page): the spec's Errors, rule 2, for 429 and 5xx (any 5xx), ours
 * for the others.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, standsForStatus: true },
  missing_field: { status: 400 },
  invalid_field: { status: 400 },
  conflicting_field: { status: 400 },
  invalid_scene: { status: 400 },
  invalid_scene_param: { status: 400 },
  unauthorized: { status: 401, standsForStatus: true },
  token_revoked: { status: 401 },
  token_expired: { status: 401 },
  key_rotated: { status: 401 },
  account_merged: { status: 401 },
  account_deleted: { status: 401 },
  forbidden: { status: 403, standsForStatus: true },
  scene_not_allowed: { status: 403 },
  not_found: { status: 404, standsForStatus: true },
  idempotency_conflict: { status: 409 },
  rotation_conflict: { status: 409 },
  limit_reached: { status: 409 },
  merge_group_full: { status: 409 },
  link_not_pending: { status: 409 },
  device_exists: { status: 409 },
  link_superseded: { status: 409 },
  source_rejected: { status: 409 },
  source_in_use: { status: 409 },
  cursor_expired: { status: 410 },
  link_expired: { status: 410 },
  payload_too_large: { status: 413, standsForStatus: true },
  unsupported_media_type: { status: 415, standsForStatus: true },
  urls_not_allowed: { status: 422 },
  quota_exceeded: { status: 429 },
  rate_limited: { status: 429, standsForStatus: true },
  link_locked: { status: 429 },
  internal_error: { status: 500 },
  service_unavailable: { status: 503, standsForStatus: true },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** The error body of the interface: `{ error: { code, message, field?, details? }, request_id }`. */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    field?: string;
    details?: Record<string, unknown>;
  };
  request_id: string;
}
