// Send tokens, and the one rule of when a token works no more.

export type TokenKind = 'standard' | 'agent';

export interface SendToken {
  id: string;
  accountId: string;
  /** The sender name shown with every notification sent with this token. */
  name: string;
  kind: TokenKind;
  ownStatus: boolean;
  deviceNames: boolean;
  /** The scene allowlist; null allows every scene. */
  scenes: string[] | null;
  allowUrls: boolean;
  defaultTarget: string | null;
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}

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
