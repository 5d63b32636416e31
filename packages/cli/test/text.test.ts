import { describe, expect, it } from 'vitest';
import { duration } from '../src/commands/run.js';
import { normalizeWaitFlag } from '../src/flags.js';
import { cutToBytes, plainText } from '../src/text.js';

describe('text for a notification', () => {
  it('removes colours, hyperlinks and control characters, and keeps what a redrawn line last showed', () => {
    expect(plainText('\u001b[1;31mFAIL\u001b[0m a.test.ts')).toBe('FAIL a.test.ts');
    expect(plainText('\u001b]8;;https://x.dev\u0007link\u001b]8;;\u0007')).toBe('link');
    expect(plainText('10%\r50%\r100%\r\nnext\tline\u0007')).toBe('100%\nnext\tline');
  });

  it('cuts at a byte limit on a character boundary, marking the cut', () => {
    expect(cutToBytes('short', 10, 'start')).toBe('short');
    expect(cutToBytes('ééééé', 8, 'start')).toBe('éé…');
    expect(cutToBytes('abcdef😀', 8, 'end')).toBe('…f😀');
    expect(Buffer.byteLength(cutToBytes('x'.repeat(5000), 4000, 'end'))).toBe(4000);
  });

  it('says how long a command took in words that fit the time', () => {
    expect([850, 12_340, 245_000, 7_380_000].map(duration)).toEqual([
      '850 ms',
      '12.3 s',
      '4 min 05 s',
      '2 h 03 min',
    ]);
  });
});

describe('--wait and the words after it', () => {
  it('takes a number after --wait as its seconds, and anything else as the message', () => {
    expect(normalizeWaitFlag(['send', '--wait', '30', 'hi'])).toEqual(['send', '--wait', '30', 'hi']);
    expect(normalizeWaitFlag(['send', '--wait', 'Deploy', 'done'])).toEqual([
      'send',
      '--wait=',
      'Deploy',
      'done',
    ]);
    expect(normalizeWaitFlag(['send', 'hi', '--wait'])).toEqual(['send', 'hi', '--wait=']);
    expect(normalizeWaitFlag(['run', '--', 'sleep', '--wait', 'x'])).toEqual([
      'run',
      '--',
      'sleep',
      '--wait',
      'x',
    ]);
  });
});
