import { describe, expect, it } from 'vitest';
import { hashSecret, secretsEqual } from '../../src/kernel/secrets.js';

describe('secrets', () => {
  it('are stored as their SHA-256 in base64url: a change here would orphan every stored token and key', () => {
    expect(hashSecret('fox_send_0123456789abcdefghijABCDEFGHIJ01')).toBe(
      'h9k2PfmvkE1gQf06DqMeAEckZ13R1T75TbyMZ3BhzE0',
    );
  });

  it('compare equal only when every character is', () => {
    expect(secretsEqual('fox_admin_key', 'fox_admin_key')).toBe(true);
    expect(secretsEqual('fox_admin_key', 'fox_admin_kex')).toBe(false);
    expect(secretsEqual('fox_admin_key', 'fox_admin_key ')).toBe(false);
  });
});
