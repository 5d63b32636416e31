/**
 * A device's freshness in words, the same in every place a person reads it (notify, the admin
 * command, the device page): when its app last used its device key, and what to do when a Web
 * Push device went stale (iOS drops a web app's subscription without a word).
 */
export function seenInWords(device: { last_seen_at?: string | null; stale?: boolean }, now: number): string {
  const seen = device.last_seen_at == null ? undefined : Date.parse(device.last_seen_at);
  if (device.stale === true) {
    return seen === undefined
      ? 'never seen: open Foxbell on it'
      : `not seen for ${ago(now - seen)}: open Foxbell on it`;
  }
  if (seen === undefined) return 'not seen yet';
  return now - seen < 60_000 ? 'seen just now' : `seen ${ago(now - seen)} ago`;
}

/** A span as a person says it: the largest whole unit. */
function ago(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, unit] of units) {
    const count = Math.floor(ms / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'}`;
  }
  return 'a moment';
}
