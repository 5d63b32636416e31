import { describe, expect, it } from 'vitest';
import type { NewSend } from '../../src/model/admission.js';
import { admit, countInWindow, type SecondCount, type SenderView } from '../../src/model/admission.js';

// 12:00:30.250 on a day: the minute window holds the seconds from 11:59:31 on.
const NOW = Date.UTC(2026, 10, 25, 12, 0, 30, 250);
const SECOND = Math.floor(NOW / 1000);
const LIMITS = { perTokenPerMinute: 3, perAccountPerMinute: 5, perAccountPerMonth: 100 };

function sendWith(idempotency?: { key: string; fingerprint: string }): NewSend {
  return {
    id: 'ntf_new',
    requestId: 'req_new',
    account: { id: 'acc_1', name: null, keyGeneration: 1, createdAt: 0, deletedAt: null, mergedInto: null },
    token: { id: 'tok_1' } as NewSend['token'],
    notification: {} as NewSend['notification'],
    idempotency,
    now: NOW,
    limits: LIMITS,
  };
}

function view(
  parts: {
    token?: SecondCount[];
    account?: SecondCount[];
    month?: number;
    earlier?: SenderView['earlier'];
  } = {},
) {
  const reads: string[] = [];
  const senderView: SenderView = {
    monthlyCount: parts.month ?? 0,
    earlier: parts.earlier ?? (() => undefined),
    windows: () => {
      reads.push('windows');
      return { tokenWindow: parts.token ?? [], accountWindow: parts.account ?? [] };
    },
  };
  return { senderView, reads };
}

describe('admission, the one decision both stores make', () => {
  it('answers a repeated key with the earlier send, whatever the limits, and reads no window', () => {
    const { senderView, reads } = view({
      month: 100,
      earlier: () => ({ fingerprint: 'f1', id: 'ntf_old', requestId: 'req_old' }),
    });
    expect(admit(sendWith({ key: 'k', fingerprint: 'f1' }), senderView)).toEqual({
      kind: 'replayed',
      id: 'ntf_old',
      requestId: 'req_old',
      monthlyCount: 100,
    });
    expect(reads).toEqual([]);
    expect(
      admit(sendWith({ key: 'k', fingerprint: 'f2' }), view({ earlier: senderView.earlier }).senderView),
    ).toEqual({ kind: 'idempotency_conflict', monthlyCount: 0 });
  });

  it('rejects a full month before looking at the minute: waiting would not help', () => {
    const full = [{ second: SECOND, count: 3 }];
    expect(admit(sendWith(), view({ month: 100, token: full }).senderView)).toEqual({
      kind: 'quota_exceeded',
      limit: 100,
      monthlyCount: 100,
    });
  });

  it.each([
    [
      'the token',
      [{ second: SECOND - 50, count: 3 }],
      [],
      { scope: 'token', limit: 3, retryAfterSeconds: 10 },
    ],
    [
      'the account',
      [],
      [{ second: SECOND - 20, count: 5 }],
      { scope: 'account', limit: 5, retryAfterSeconds: 40 },
    ],
    [
      'both, the longer wait',
      [{ second: SECOND - 50, count: 3 }],
      [{ second: SECOND - 20, count: 5 }],
      { scope: 'account', limit: 5, retryAfterSeconds: 40 },
    ],
  ])('rejects when %s has no room, with the seconds until it has', (_, token, account, rejection) => {
    expect(admit(sendWith(), view({ token, account, month: 7 }).senderView)).toEqual({
      kind: 'rate_limited',
      ...rejection,
      monthlyCount: 7,
    });
  });

  it('admits with room, counting the send in the month; seconds past the minute do not count', () => {
    const token = [
      { second: SECOND - 60, count: 9 },
      { second: SECOND - 1, count: 2 },
    ];
    expect(admit(sendWith(), view({ token, month: 7 }).senderView)).toEqual({
      kind: 'accepted',
      id: 'ntf_new',
      requestId: 'req_new',
      monthlyCount: 8,
    });
  });

  it('counts a send in its second, so the batch’s later sends see it', () => {
    const window: SecondCount[] = [{ second: SECOND - 1, count: 2 }];
    countInWindow(window, NOW);
    countInWindow(window, NOW + 100);
    expect(window).toEqual([
      { second: SECOND - 1, count: 2 },
      { second: SECOND, count: 2 },
    ]);
  });
});
