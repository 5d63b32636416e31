import { randomInt } from 'node:crypto';
import { LINK_CODE_ALPHABET, LINK_CODE_LENGTH, shownLinkCode } from '@foxbell/sdk/server-contract';

/** A new link code, as the interface shows it: `XXXX-XXXX` (the contract's letters). */
export function newLinkCode(): string {
  let code = '';
  for (let i = 0; i < LINK_CODE_LENGTH; i++) code += LINK_CODE_ALPHABET[randomInt(LINK_CODE_ALPHABET.length)];
  return shownLinkCode(code);
}
