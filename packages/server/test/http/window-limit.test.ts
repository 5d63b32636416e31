import { describe, expect, it } from 'vitest';
import { KEYS_KEPT, WindowLimit } from '../../src/http/window-limit.js';
import { HttpError } from '../../src/kernel/http-error.js';
import { ManualClock } from '../helpers.js';

/** The error `check` throws, or undefined when the key may go on. */
function errorOf(limit: WindowLimit, key: string): HttpError | undefined {
  try {
    limit.check(key);
    return undefined;
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
}

describe('WindowLimit: a brake per key in fixed windows, on the injected clock', () => {
  it('rejects the key past its limit until its window ends, with the seconds left', () => {
    const clock = new ManualClock();
    const limit = new WindowLimit(3, clock, 'failed_credentials');
    for (let i = 0; i < 3; i += 1) limit.take('a');
    clock.advance(20_500);
    const refused = errorOf(limit, 'a');
    expect([refused?.code, refused?.details, refused?.headers]).toEqual([
      'rate_limited',
      { scope: 'failed_credentials', limit: 3 },
      { 'retry-after': '40' },
    ]);
    expect(errorOf(limit, 'b')).toBeUndefined();
    clock.advance(39_500);
    expect(errorOf(limit, 'a')).toBeUndefined();
  });

  it('takes a count back when asked: a write that changed nothing is not one of the window', () => {
    const clock = new ManualClock();
    const limit = new WindowLimit(2, clock, 'account_changes');
    limit.take('a');
    const giveBack = limit.take('a');
    expect(errorOf(limit, 'a')?.code).toBe('rate_limited');
    giveBack();
    expect(errorOf(limit, 'a')).toBeUndefined();
    // Given back after its window ended, it takes nothing from the next one.
    const late = limit.take('a');
    clock.advance(60_000);
    limit.take('a');
    late();
    limit.take('a');
    expect(errorOf(limit, 'a')?.code).toBe('rate_limited');
  });

  it('keeps at most 100,000 keys by default, and at most what it is given, whatever the number of clients', () => {
    expect(KEYS_KEPT).toBe(100_000);
    const clock = new ManualClock();
    const limit = new WindowLimit(30, clock, 'failed_credentials');
    for (let i = 0; i < KEYS_KEPT * 1.5; i += 1) limit.count(`client ${i}`);
    expect(limit.size).toBe(KEYS_KEPT);
    const small = new WindowLimit(30, clock, 'failed_credentials', { keysKept: 1000 });
    for (let i = 0; i < 50_000; i += 1) small.count(`client ${i}`);
    expect(small.size).toBe(1000);
  });

  it('forgets the key used least recently: one that keeps asking stays rejected through a flood of others', () => {
    const clock = new ManualClock();
    const limit = new WindowLimit(3, clock, 'failed_credentials', { keysKept: 1000 });
    for (let i = 0; i < 3; i += 1) limit.count('attacker');
    // 999 other keys between each of its requests: it is never the one forgotten.
    for (let round = 0; round < 20; round += 1) {
      for (let i = 0; i < 999; i += 1) limit.count(`round ${round} client ${i}`);
      expect(errorOf(limit, 'attacker')?.code, `round ${round}`).toBe('rate_limited');
    }
    // Silent while 1,000 others were counted, it is forgotten: what those 1,000 keys were given
    // (a window each) is more than forgetting it gave back.
    for (let i = 0; i < 1000; i += 1) limit.count(`later client ${i}`);
    expect(errorOf(limit, 'attacker')).toBeUndefined();
  });
});
