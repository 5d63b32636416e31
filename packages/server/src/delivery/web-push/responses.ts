import type { PushOutcome } from '../transport.js';

/**
 * A push service's response in the delivery rules' terms. `201` (or any `2xx`: `202` when the
 * service took it for later) is accepted. `404` and `410`: the subscription is gone, the device
 * leaves lists and `auto`. `429` and `5xx` are worth another attempt; any other response (`400`, a
 * `403` for the VAPID key, `413`) would be the same again.
 */
export function judgeWebPushResponse(status: number): PushOutcome {
  const outcome = (verdict: PushOutcome['verdict'], more: Partial<PushOutcome> = {}): PushOutcome => ({
    verdict,
    status,
    deactivateDevice: null,
    pauseCredential: false,
    ...more,
  });
  if (status >= 200 && status < 300) return outcome('accepted');
  if (status === 404 || status === 410) {
    return outcome('failed_permanent', { failure: 'gone', deactivateDevice: 'subscription_gone' });
  }
  if (status === 429 || status >= 500) return outcome('retry');
  return outcome('failed_permanent', { failure: 'refused' });
}
