import { describe, expect, it } from 'vitest';
import {
  INACTIVE_REASONS,
  inactiveInWords,
  PUSH_FAILURE_REASONS,
  pushFailureInWords,
} from '../src/contract/push-failures.js';

describe('why a push will not arrive, in words', () => {
  it('says each failure reason in words of its own, with advice', () => {
    const said = PUSH_FAILURE_REASONS.map((reason) => pushFailureInWords(reason));
    expect(new Set(said.map((words) => words.what)).size).toBe(PUSH_FAILURE_REASONS.length);
    for (const words of said) expect(words.advice).not.toBe('');
  });

  it('tells a person whose subscription is gone to open Foxbell, never to wait longer', () => {
    expect(pushFailureInWords('gone').advice).toBe('open Foxbell on it to turn notifications on again');
    expect(inactiveInWords('subscription_gone').advice).toBe(
      'open Foxbell on it to turn notifications on again',
    );
    for (const reason of PUSH_FAILURE_REASONS) expect(pushFailureInWords(reason).advice).not.toMatch(/wait/i);
  });

  it('says each inactive reason in words of its own', () => {
    const said = INACTIVE_REASONS.map((reason) => inactiveInWords(reason).what);
    expect(new Set(said).size).toBe(INACTIVE_REASONS.length);
  });

  it('still reads as a sentence for a reason a newer server adds, or none', () => {
    expect(pushFailureInWords('quota').what).toBe('it could not be reached');
    expect(pushFailureInWords(undefined).what).toBe('it could not be reached');
    expect(inactiveInWords('archived').what).toBe('it is no longer active');
  });
});
