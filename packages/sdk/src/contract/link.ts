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
