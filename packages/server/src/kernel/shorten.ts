const ELLIPSIS = '…';

/**
 * The longest prefix of `message` (whole code points) whose JSON string form, with an ellipsis,
 * fits in `room` bytes. JSON escapes count: a newline costs two bytes, a tab two. Push payloads
 * have a hard size (4 KB for APNs, the 4,096-byte record for Web Push); the full text stays in
 * the inbox.
 */
function shorten(message: string, room: number): string {
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

/**
 * A push payload within `maxBytes`, for a push service's hard size: built with the whole
 * `message` if it fits; else `custom.truncated` is set and the message shortened to the room
 * left, leaving out `custom`'s keys a group at a time, in `dropOrder`, until it fits (the app reads
 * what was left out from the inbox, which has it whole).
 */
export function fitPayload(
  maxBytes: number,
  message: string,
  custom: Record<string, unknown>,
  build: (message: string) => string,
  dropOrder: readonly (readonly string[])[],
): string {
  let payload = build(message);
  if (Buffer.byteLength(payload) <= maxBytes) return payload;
  custom.truncated = true;
  for (const dropped of [[], ...dropOrder]) {
    for (const key of dropped) custom[key] = undefined;
    const room = maxBytes - Buffer.byteLength(build(''));
    if (room > Buffer.byteLength(ELLIPSIS) + 2) {
      payload = build(shorten(message, room));
      if (Buffer.byteLength(payload) <= maxBytes) break;
    }
  }
  return payload;
}
