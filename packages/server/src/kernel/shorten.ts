export const ELLIPSIS = '…';

/**
 * The longest prefix of `message` (whole code points) whose JSON string form, with an ellipsis,
 * fits in `room` bytes. JSON escapes count: a newline costs two bytes, a tab two. Push payloads
 * have a hard size (4 KB for APNs, the 4,096-byte record for Web Push); the full text stays in
 * the inbox.
 */
export function shorten(message: string, room: number): string {
  const budget = room - Buffer.byteLength(JSON.stringify(ELLIPSIS)) + 2;
  let used = 0;
  let end = 0;
  for (const char of message) {
    const cost = Buffer.byteLength(JSON.stringify(char)) - 2;
    if (used + cost > budget) break;
    used += cost;
    end += char.length;
  }
  return message.slice(0, end) + ELLIPSIS;
}
