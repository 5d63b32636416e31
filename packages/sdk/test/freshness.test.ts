import { describe, expect, it } from 'vitest';
import { seenInWords } from '../src/contract/freshness.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const before = (ms: number) => new Date(NOW - ms).toISOString();
const DAY = 86_400_000;

describe('seenInWords: a device freshness as a person reads it', () => {
  it.each([
    [{ last_seen_at: null, stale: false }, 'not seen yet'],
    [{ last_seen_at: before(30_000), stale: false }, 'seen just now'],
    [{ last_seen_at: before(60_000), stale: false }, 'seen 1 minute ago'],
    [{ last_seen_at: before(59 * 60_000), stale: false }, 'seen 59 minutes ago'],
    [{ last_seen_at: before(2 * 3_600_000 + 5), stale: false }, 'seen 2 hours ago'],
    [{ last_seen_at: before(3 * DAY + 3_600_000), stale: false }, 'seen 3 days ago'],
    [{ last_seen_at: before(41 * DAY), stale: true }, 'not seen for 41 days: open Foxbell on it'],
    [{ last_seen_at: null, stale: true }, 'never seen: open Foxbell on it'],
    // An older server, without the fields.
    [{}, 'not seen yet'],
  ])('%j: %s', (device, words) => {
    expect(seenInWords(device, NOW)).toBe(words);
  });
});
