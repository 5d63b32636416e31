import { type Notification, validateSend } from '@foxbell/sdk/contract';
import { ApiError, valueOrThrow } from '../errors.js';
import type { SendToken } from '../store/store.js';
import { mergeSources, type SendSources } from './sources.js';

export type PreparedNotification = Notification & { target: string };

const URL_FIELDS = ['url', 'url_title', 'image'] as const;

/**
 * Turns what a request carried into the notification to store, or throws the refusal: the
 * sources merged, every field rule of the contract, then what this token may send (its scene
 * allowlist, applied to the scene actually played, and its URL permission).
 */
export function notificationFromRequest(sources: SendSources, token: SendToken): PreparedNotification {
  const merged = mergeSources(sources);
  if (!merged.ok) throw ApiError.fromField(merged.error);
  const notification = valueOrThrow(validateSend(merged.fields, { unknownScenes: 'reject' }));
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
