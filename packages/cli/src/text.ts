/** Text as the service takes it: UTF-8 within a byte limit, no control characters but tab and newline. */

/** Text cut to at most `maxBytes` of UTF-8, keeping its start (`keep: 'start'`) or its end. */
export function cutToBytes(text: string, maxBytes: number, keep: 'start' | 'end'): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const ellipsis = '…';
  const room = maxBytes - Buffer.byteLength(ellipsis);
  const slice = keep === 'start' ? bytes.subarray(0, room) : bytes.subarray(bytes.length - room);
  // A cut inside a character leaves U+FFFD at the cut; drop it.
  const cut = slice.toString('utf8').replace(keep === 'start' ? /\uFFFD+$/ : /^\uFFFD+/, '');
  return keep === 'start' ? `${cut}${ellipsis}` : `${ellipsis}${cut}`;
}

// CSI and OSC sequences: colours, cursor moves, hyperlinks.
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are what this removes.
const TERMINAL_ESCAPES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters the spec forbids in text.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * Terminal output as plain text: escapes removed, a line redrawn with carriage returns (a
 * progress bar) reduced to what it last showed, other control characters dropped.
 */
export function plainText(text: string): string {
  return text
    .replace(TERMINAL_ESCAPES, '')
    .split('\n')
    .map((line) => {
      const drawn = line.replace(/\r+$/, '');
      return drawn.slice(drawn.lastIndexOf('\r') + 1);
    })
    .join('\n')
    .replace(CONTROL, '');
}
