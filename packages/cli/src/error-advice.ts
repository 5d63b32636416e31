import type { ErrorCode } from '@foxbell/sdk/contract';

/**
 * What a person should do about each error code, shown under notify's error. Here rather than in
 * the contract's table: it is notify's wording, and an app's bundle of the SDK need not carry it.
 * Typed by the codes, so a new code cannot go without advice.
 */
export const ERROR_ADVICE: Record<ErrorCode, string> = {
  invalid_request: 'Fix body',
  missing_field: 'Add the field',
  invalid_field: 'Fix the field',
  conflicting_field: 'Give it once',
  invalid_scene: 'Check catalog',
  invalid_scene_param: 'Fix `scene_params.<name>`',
  unauthorized: 'Check token and address',
  token_revoked: 'New token',
  token_expired: 'New token',
  key_rotated: 'Use the new key',
  account_merged: "Use surviving account's key",
  account_deleted: 'Stop',
  forbidden: 'Use right credential',
  scene_not_allowed: 'Use an allowed scene',
  not_found: 'Check id',
  idempotency_conflict: 'Resend identical original; new key only for a new notification',
  rotation_conflict: 'Wait for new key',
  limit_reached: 'Remove something; for link approvals wait `Retry-After`',
  merge_group_full: 'none given',
  link_not_pending: 'New link request',
  device_exists: 'Remove it first',
  link_superseded: 'Link again with a new device id',
  source_rejected: 'Fix proof or leave old account',
  source_in_use: 'Switch with `source_in_use: leave`',
  cursor_expired: 'Resync from start',
  link_expired: 'New link request',
  payload_too_large: 'Send less',
  unsupported_media_type: 'Send JSON (simple endpoint: also form or plain text)',
  urls_not_allowed: 'Resend without `url`, `url_title`, `image`',
  quota_exceeded: 'Do not retry; wait for next UTC month',
  rate_limited: 'Wait `Retry-After`',
  link_locked: 'Wait `Retry-After`',
  internal_error: 'Retry with backoff',
  service_unavailable: 'Retry after `Retry-After`',
};
