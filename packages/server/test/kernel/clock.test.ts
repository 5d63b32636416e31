import { describe, expect, it } from 'vitest';
import { isoTime, retryAfterSeconds, utcMonth } from '../../src/kernel/clock.js';

describe("the server's time", () => {
  it('writes the one timestamp form of the interface, with milliseconds', () => {
    expect(isoTime(Date.UTC(2026, 10, 28, 9, 5, 7, 12))).toBe('2026-11-28T09:05:07.012Z');
  });

  it('says a wait in whole seconds, rounded up, at least one', () => {
    expect([0, 1, 999, 1000, 1001, 59_500].map(retryAfterSeconds)).toEqual([1, 1, 1, 1, 2, 60]);
  });

  it("names a time's UTC month, at both ends of it, whatever it asked before", () => {
    const end = Date.UTC(2026, 11, 1) - 1;
    expect(utcMonth(Date.UTC(2026, 10, 1))).toBe('2026-11');
    expect(utcMonth(end)).toBe('2026-11');
    expect(utcMonth(end + 1)).toBe('2026-12');
    // Back to an earlier month after a later one: the kept month is not taken for it.
    expect(utcMonth(Date.UTC(2024, 1, 29, 23, 59))).toBe('2024-02');
    expect(utcMonth(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toBe('2026-12');
  });
});
