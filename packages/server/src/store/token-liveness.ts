/**
 * Why a send token works no more at `now`, or undefined while it works: revoked (at once, whenever
 * that was), or past its expiry, which ends it from that instant on. Auth, routing and the admin's
 * list decide by it; its SQL twin is `liveToken` (queries.ts), which the token limit, the lists and
 * a switch's counts use.
 */
export function tokenEnded(
  token: { revokedAt: number | null; expiresAt: number | null },
  now: number,
): 'token_revoked' | 'token_expired' | undefined {
  if (token.revokedAt !== null) return 'token_revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'token_expired';
  return undefined;
}
