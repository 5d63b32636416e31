import { hash, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of a secret. A fast hash is enough here: every secret the server makes carries
 * 190 random bits, so there is nothing for a slow password hash to protect against guessing. The
 * admin key is an operator's string, and it is never stored, only held in memory.
 */
export function hashSecret(secret: string): string {
  // crypto.hash (Node 20.12+), one call: a third of createHash's cost, paid on every request.
  return hash('sha256', secret, 'base64url');
}

/** Compares two secrets in time independent of where they differ (both are hashed to one length first). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = hash('sha256', given, 'buffer');
  const b = hash('sha256', expected, 'buffer');
  return timingSafeEqual(a, b);
}
