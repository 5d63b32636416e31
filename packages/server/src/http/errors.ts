import { HttpError } from '../kernel/http-error.js';

// Errors more than one route gives, in one wording each.

/** The 21st active device, by whichever path would make it active. */
export function devicesLimitReached(max: number): HttpError {
  return new HttpError('limit_reached', `an account has at most ${max} devices`, {
    details: { limit: 'devices', max },
  });
}

/** A device key whose device was removed, or moved to another account: revoked. */
export function deviceKeyRevoked(): HttpError {
  return new HttpError(
    'token_revoked',
    'this device was removed or moved to another account: its device key works no more',
  );
}
