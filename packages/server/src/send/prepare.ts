import { isSendFieldName, type Notification, validateSend } from '@foxbell/sdk/contract';
import { ApiError, valueOrThrow } from '../kernel/api-error.js';
import type { SendToken } from '../store/store.js';
import { mergeSources, type SendSources } from './sources.js';

export type PreparedNotification = Notification & { target: string };

const URL_FIELDS = ['url', 'url_title', 'image'] as const;

function isUnknownFormName(field: string | undefined, sources: SendSources): boolean {
  return (
    field !== undefined && !isSendFieldName(field) && (sources.form ?? []).some(({ name }) => name === field)
  );
}

/**
 * Turns what a request carried into the notification to store, or throws the refusal: the
 * sources merged, every field rule of the contract, then what this token may send (its scene
 * allowlist, applied to the scene actually played, and its URL permission).
 */
export function notificationFromRequest(sources: SendSources, token: SendToken): PreparedNotification {
  const merged = mergeSources(sources);
  if (!merged.ok) throw ApiError.fromField(merged.error);
  const validated = validateSend(merged.fields, { unknownScenes: 'reject' });
  if (!validated.ok && sources.form && isUnknownFormName(validated.error.field, sources)) {
    // `curl -d "x = 1 + 1"` means a message, but a form is name=value pairs: say how to send text.
    validated.error.message += `: a form body is read as name=value pairs; send the text as text/plain, or as message=… (curl --data-urlencode "message=…")`;
  }
  const notification = valueOrThrow(validated);
  if (token.scenes !== null && !token.scenes.includes(notification.scene)) {
    throw new ApiError('scene_not_allowed', `this token may not play the scene ${notification.scene}`, {
      field: 'scene',
      details: { allowed: token.scenes },
    });
  }
  if (!token.allowUrls) {
    const field = URL_FIELDS.find((name) => notification[name] !== undefined);
    if (field) {
      throw new ApiError('urls_not_allowed', 'this token may not send url, url_title or image', { field });
    }
  }
  // Set on the validated object itself (validateSend made it for this request): a copy by
  // spread cost more than the rest of this function.
  notification.target ??= token.defaultTarget ?? 'auto';
  return notification as PreparedNotification;
}
