import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomIds } from '../../src/kernel/ids.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ids', () => {
  it('are the prefix and 22 letters and digits, sorting as text by the millisecond they were made in', () => {
    vi.useFakeTimers();
    const times = [
      Date.parse('1970-01-01T00:00:00.000Z'),
      Date.parse('2026-11-22T10:00:00.000Z'),
      Date.parse('2026-11-22T10:00:00.001Z'),
      Date.parse('2026-11-22T10:00:00.062Z'),
      Date.parse('2027-01-01T00:00:00.000Z'),
      Date.parse('2999-12-31T23:59:59.999Z'),
    ];
    const made = times.map((time) => {
      vi.setSystemTime(time);
      return randomIds.id('ntf');
    });
    for (const id of made) expect(id).toMatch(/^ntf_[A-Za-z0-9]{22}$/);
    expect([...made].sort()).toEqual(made);
    expect(made[0]?.slice(4, 12)).toBe('00000000');
  });

  it('differ within one millisecond in their 14 random characters', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-22T10:00:00.000Z') });
    const made = Array.from({ length: 1000 }, () => randomIds.id('req'));
    expect(new Set(made).size).toBe(1000);
    expect(new Set(made.map((id) => id.slice(4, 12))).size).toBe(1);
  });
});
