import { randomInt } from 'node:crypto';

/**
 * The letters of a link code: no look-alikes (no 0 and O, no 1, I and L), so a code read off one
 * screen and typed on another is typed right. 31 letters, 8 of them: about 40 bits, for a code
 * that lives 10 minutes and locks its approver after 5 wrong guesses.
 */
export const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const CODE_LENGTH = 8;

/** A new code, as the interface shows it: `XXXX-XXXX`. */
export function newLinkCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * A code as typed, in its one stored spelling: case, spaces and the dash do not matter.
 * Undefined when it cannot be a code at all (it then matches no request).
 */
export function canonicalCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== CODE_LENGTH || [...code].some((char) => !CODE_ALPHABET.includes(char)))
    return undefined;
  return code;
}
