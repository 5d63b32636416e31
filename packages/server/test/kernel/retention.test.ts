import { describe, expect, it } from 'vitest';
import { retentionCutoffs } from '../../src/kernel/retention.js';

const DAY = 86_400_000;

describe('what a purge deletes', () => {
  it('keeps notifications and credentials 30 days, keys a day, windows a minute, wrong codes an hour', () => {
    const now = Date.UTC(2026, 10, 28);
    expect(retentionCutoffs(now)).toEqual({
      notificationsBefore: now - 30 * DAY,
      keysBefore: now - DAY,
      windowsBefore: now - 60_000,
      credentialsBefore: now - 30 * DAY,
      wrongCodesBefore: now - 3_600_000,
    });
  });
});
