// How a device links itself, where both ends read it: the code's letters, its one stored spelling,
// and the app's own id for itself. Zod-free, like values.ts.

/**
 * The letters of a link code: no look-alikes (no 0 and O, no 1, I and L), so a code read off one
 * screen and typed on another is typed right. 8 of 31 letters: about 40 bits, for a code that
 * lives 10 minutes and locks its approver after 5 wrong guesses.
 */
export const LINK_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const LINK_CODE_LENGTH = 8;

/**
 * A code as typed, in its one canonical spelling (case, spaces and the dash do not matter), or
 * undefined when it cannot be a code at all.
 */
export function canonicalLinkCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== LINK_CODE_LENGTH || [...code].some((char) => !LINK_CODE_ALPHABET.includes(char))) {
    return undefined;
  }
  return code;
}

/** A code as the interface shows it: `XXXX-XXXX`. */
export function shownLinkCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** The app's own id for itself (`device_id`): made once per installation and kept. */
export const CLIENT_DEVICE_ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** A wait as a person reads it: "a minute", "3 minutes" (rounded up; a minute when unknown). */
export function minutesInWords(seconds: number | undefined): string {
  const count = Math.max(1, Math.ceil((seconds ?? 60) / 60));
  return count === 1 ? 'a minute' : `${count} minutes`;
}

/** An approval's error, as far as its words need it. */
export interface LinkApprovalError {
  code: string;
  field?: string | undefined;
  details?: { limit?: unknown } | undefined;
  /** The response's `Retry-After`, in seconds. */
  retryAfter?: number | undefined;
}

/**
 * Why approving a link code failed, in the words a person reads wherever they approve one (the
 * web app, `foxbell-server admin link approve`): what is wrong with the code and what to do,
 * never the API's own message. Undefined for an error that is not about the code.
 */
export function linkApprovalInWords(error: LinkApprovalError): string | undefined {
  switch (error.code) {
    case 'not_found':
      return 'No device is showing that code. Check it: codes have no 0, O, 1, I or L.';
    case 'link_expired':
      return 'That code has expired. Make a new one on the other device.';
    case 'link_not_pending':
      return 'That code was already used or cancelled. Make a new one on the other device.';
    case 'link_superseded':
      return 'That device made a newer code. Approve the newest one.';
    case 'link_locked':
      return `Too many wrong codes. You can approve again in ${minutesInWords(error.retryAfter)}.`;
    case 'limit_reached':
      return error.details?.limit === 'link_approvals'
        ? `Your account linked 5 devices in the last 10 minutes. Try again in ${minutesInWords(error.retryAfter)}.`
        : 'Your account has 20 devices already. Remove one you no longer use, then try again.';
    case 'invalid_field':
    case 'missing_field':
      return error.field === 'code' ? 'A code is 8 letters and digits, as XXXX-XXXX.' : undefined;
    default:
      return undefined;
  }
}
