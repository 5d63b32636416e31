import { SERVICE_LIMITS } from '@foxbell/sdk/contract';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/kernel/catalog.js';
import { DEFAULT_LIMITS } from '../../src/kernel/limits.js';

describe("the kernel's fixed values", () => {
  it("takes the interface's limits from the contract, not from a copy", () => {
    expect(DEFAULT_LIMITS).toMatchObject({
      perTokenPerMinute: SERVICE_LIMITS.sendsPerTokenPerMinute,
      perAccountPerMinute: SERVICE_LIMITS.sendsPerAccountPerMinute,
      perAccountPerMonth: SERVICE_LIMITS.sendsPerAccountPerMonth,
      devicesPerAccount: SERVICE_LIMITS.devicesPerAccount,
      tokensPerAccount: SERVICE_LIMITS.tokensPerAccount,
    });
    expect(Object.values(DEFAULT_LIMITS).every((value) => Number.isInteger(value) && value > 0)).toBe(true);
  });

  it('makes the scene catalog once, each version with its parameters as JSON Schema', () => {
    expect(CATALOG.scenes.length).toBeGreaterThan(0);
    for (const scene of CATALOG.scenes) {
      expect(scene.versions.length, scene.id).toBeGreaterThan(0);
      for (const version of scene.versions)
        expect(version.params, `${scene.id} v${version.version}`).toMatchObject({ type: 'object' });
    }
  });
});
