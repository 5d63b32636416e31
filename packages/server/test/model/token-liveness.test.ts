import { describe, expect, it } from 'vitest';
import { tokenEnded } from '../../src/model/tokens.js';

describe('tokenEnded', () => {
  const NOW = 1_800_000_000_000;

  it('ends a revoked token at once, whenever the revocation was stamped (another process may run ahead)', () => {
    expect(tokenEnded({ revokedAt: NOW - 1, expiresAt: null }, NOW)).toBe('token_revoked');
    expect(tokenEnded({ revokedAt: NOW + 5, expiresAt: null }, NOW)).toBe('token_revoked');
    // Revoked and expired both: the revocation is what the caller is told.
    expect(tokenEnded({ revokedAt: NOW - 1, expiresAt: NOW - 1 }, NOW)).toBe('token_revoked');
  });

  it('ends a token at the instant of its expiry, not before', () => {
    expect(tokenEnded({ revokedAt: null, expiresAt: NOW + 1 }, NOW)).toBeUndefined();
    expect(tokenEnded({ revokedAt: null, expiresAt: NOW }, NOW)).toBe('token_expired');
    expect(tokenEnded({ revokedAt: null, expiresAt: null }, NOW)).toBeUndefined();
  });
});
