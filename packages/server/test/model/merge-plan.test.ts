import { describe, expect, it } from 'vitest';
import { planMerge } from '../../src/model/merge.js';

const LIMITS = { groupMax: 5, devices: 20 };
const devices = (prefix: string, count: number, clientIds: (string | null)[] = []) =>
  Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, clientId: clientIds[i] ?? null }));

describe('how a merge is decided (both stores)', () => {
  it("removes the merged account's registration of a device id the canonical one has, and keeps the rest", () => {
    const plan = planMerge(
      { canonicalGroup: 1, mergedGroup: 1 },
      { canonical: devices('c', 2, ['same', null]), merged: devices('m', 3, ['same', 'other', null]) },
      LIMITS,
    );
    expect(plan).toEqual({ kind: 'merge', removed: ['m0'] });
  });

  it('counts both groups against 5 accounts', () => {
    const none = { canonical: [], merged: [] };
    expect(planMerge({ canonicalGroup: 3, mergedGroup: 2 }, none, LIMITS).kind).toBe('merge');
    expect(planMerge({ canonicalGroup: 4, mergedGroup: 2 }, none, LIMITS)).toEqual({ kind: 'group_full' });
  });

  it('counts the devices left after duplicates against 20', () => {
    const sizes = { canonicalGroup: 1, mergedGroup: 1 };
    expect(planMerge(sizes, { canonical: devices('c', 15), merged: devices('m', 5) }, LIMITS).kind).toBe(
      'merge',
    );
    expect(planMerge(sizes, { canonical: devices('c', 15), merged: devices('m', 6) }, LIMITS)).toEqual({
      kind: 'devices_limit',
    });
    // A duplicate does not count twice.
    const canonical = devices('c', 15, ['same']);
    const merged = devices('m', 6, ['same']);
    expect(planMerge(sizes, { canonical, merged }, LIMITS)).toEqual({ kind: 'merge', removed: ['m0'] });
  });
});
