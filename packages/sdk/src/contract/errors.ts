/**
 * Every error code of the interface with its HTTP status: the one table that the SDK's error
 * classes, the server's error bodies and docs/errors.md all follow. `standsForStatus` marks the
 * code an answer of that status means when its body names none (a proxy's or a gateway's page):
 * the spec's Errors, rule 2, for 429 and 5xx (any 5xx), ours for the others.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, action: 'Fix body', standsForStatus: true },
  missing_field: { status: 400, action: 'Add the field' },
  invalid_field: { status: 400, action: 'Fix the field' },
  conflicting_field: { status: 400, action: 'Give it once' },
  invalid_scene: { status: 400, action: 'Check catalog' },
  invalid_scene_param: { status: 400, action: 'Fix `scene_params.<name>`' },
  unauthorized: { status: 401, action: 'Check token and address', standsForStatus: true },
  token_revoked: { status: 401, action: 'New token' },
  token_expired: { status: 401, action: 'New token' },
  key_rotated: { status: 401, action: 'Use the new key' },
  account_merged: { status: 401, action: "Use surviving account's key" },
  account_deleted: { status: 401, action: 'Stop' },
  forbidden: { status: 403, action: 'Use right credential', standsForStatus: true },
  scene_not_allowed: { status: 403, action: 'Use an allowed scene' },
  not_found: { status: 404, action: 'Check id', standsForStatus: true },
  idempotency_conflict: {
    status: 409,
    action: 'Resend identical original; new key only for a new notification',
  },
  rotation_conflict: { status: 409, action: 'Wait for new key' },
  limit_reached: { status: 409, action: 'Remove something; for link approvals wait `Retry-After`' },
  merge_group_full: { status: 409, action: 'none given' },
  link_not_pending: { status: 409, action: 'New link request' },
  device_exists: { status: 409, action: 'Remove it first' },
  link_superseded: { status: 409, action: 'Link again with a new device id' },
  source_rejected: { status: 409, action: 'Fix proof or leave old account' },
  source_in_use: { status: 409, action: 'Switch with `source_in_use: leave`' },
  cursor_expired: { status: 410, action: 'Resync from start' },
  link_expired: { status: 410, action: 'New link request' },
  payload_too_large: { status: 413, action: 'Send less', standsForStatus: true },
  unsupported_media_type: {
    status: 415,
    action: 'Send JSON (simple endpoint: also form or plain text)',
    standsForStatus: true,
  },
  urls_not_allowed: { status: 422, action: 'Resend without `url`, `url_title`, `image`' },
  quota_exceeded: { status: 429, action: 'Do not retry; wait for next UTC month' },
  rate_limited: { status: 429, action: 'Wait `Retry-After`', standsForStatus: true },
  link_locked: { status: 429, action: 'Wait `Retry-After`' },
  internal_error: { status: 500, action: 'Retry with backoff' },
  service_unavailable: { status: 503, action: 'Retry after `Retry-After`', standsForStatus: true },
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
