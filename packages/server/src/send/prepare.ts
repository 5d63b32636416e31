import { type Notification, validateSend } from '@foxbell/sdk/contract';
import { type Checked, isSendFieldName } from '@foxbell/sdk/server-contract';
import type { SendToken } from '../model/tokens.js';
import { mergeSources, type SendSources } from './sources.js';

export type PreparedNotification = Notification & { target: string };

const URL_FIELDS = ['url', 'url_title', 'image'] as const;

function isUnknownFormName(field: string | undefined, sources: SendSources): boolean {
  return (
    field !== undefined && !isSendFieldName(field) && (sources.form ?? []).some(({ name }) => name === field)
  );
}

/**
 * Turns what a request carried into the notification to store, or into its error: the sources
 * merged, every field rule of the contract, then what this token may send (its scene allowlist,
 * applied to the scene actually played, and its URL permission). Errors are data; the HTTP
 * layer responds to them.
 */
export function notificationFromRequest(
  sources: SendSources,
  token: SendToken,
): Checked<PreparedNotification> {
  const merged = mergeSources(sources);
  if (!merged.ok) return merged;
  const validated = validateSend(merged.value, { unknownScenes: 'reject' });
  if (!validated.ok) {
    if (sources.form && isUnknownFormName(validated.error.field, sources)) {
      // `curl -d "x = 1 + 1"` means a message, but a form is name=value pairs: say how to send text.
      validated.error.message += `: a form body is read as name=value pairs; send the text as text/plain, or as message=… (curl --data-urlencode "message=…")`;
    }
    return validated;
  }
  const notification = validated.value;
  if (token.scenes !== null && !token.scenes.includes(notification.scene)) {
    return fieldError(
      'scene_not_allowed',
      'scene',
      `this token may not play the scene ${notification.scene}`,
      {
        allowed: token.scenes,
      },
    );
  }
  if (!token.allowUrls) {
    const field = URL_FIELDS.find((name) => notification[name] !== undefined);
    if (field)
      return fieldError('urls_not_allowed', field, 'this token may not send url, url_title or image');
  }
  // Set on the validated object itself (validateSend made it for this request): a copy by
  // spread cost more than the rest of this function.
  notification.target ??= token.defaultTarget ?? 'auto';
  return { ok: true, value: notification as PreparedNotification };
}

function fieldError(
  code: 'scene_not_allowed' | 'urls_not_allowed',
  field: string,
  message: string,
  details?: Record<string, unknown>,
): Checked<never> {
  return { ok: false, error: { code, field, message, ...(details ? { details } : {}) } };
}
