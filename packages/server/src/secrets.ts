import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of a secret. A fast hash is enough here: every secret the server makes carries
 * 190 random bits, so there is nothing for a slow password hash to protect against guessing. The
 * admin key is an operator's string, and it is never stored, only held in memory.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Compares two secrets in time independent of where they differ (both are hashed to one length first). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
