import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import type { Clock } from '../../kernel/clock.js';

/** What token-based APNs authentication needs: the `.p8` key and the ids Apple issued with it. */
export interface ProviderKey {
  /** The `.p8` file's text: an ES256 (P-256) private key in PEM. */
  privateKeyPem: string;
  /** The 10-character key id (`kid`). */
  keyId: string;
  /** The 10-character team id (`iss`). */
  teamId: string;
}

/** Apple rejects a token older than an hour; we renew well before that. */
export const TOKEN_RENEW_AFTER_MS = 50 * 60_000;
/** Apple responds with `TooManyProviderTokenUpdates` to a connection whose token changes more often. */
export const TOKEN_MIN_LIFETIME_MS = 20 * 60_000;

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** An ES256 JWT with `kid` in the header and `iss`, `iat` (seconds) in the claims, as APNs wants. */
export function signProviderToken(key: ProviderKey, privateKey: KeyObject, issuedAtMs: number): string {
  const header = base64url(JSON.stringify({ alg: 'ES256', kid: key.keyId }));
  const claims = base64url(JSON.stringify({ iss: key.teamId, iat: Math.floor(issuedAtMs / 1000) }));
  const input = `${header}.${claims}`;
  // JWS wants the raw r||s form of the signature, not DER.
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${base64url(signature)}`;
}

/**
 * The token a connection presents. It is kept until it is `TOKEN_RENEW_AFTER_MS` old, so a
 * connection sees a new one at most every 50 minutes: inside Apple's window of 20 to 60.
 * `renew()` (after `ExpiredProviderToken`) makes a new one only if the current one is at least 20
 * minutes old, so a burst of such responses cannot trip `TooManyProviderTokenUpdates`.
 */
export class ProviderTokenSource {
  readonly #key: ProviderKey;
  readonly #privateKey: KeyObject;
  readonly #clock: Clock;
  #current: { token: string; issuedAt: number } | undefined;

  constructor(key: ProviderKey, clock: Clock) {
    this.#key = key;
    this.#privateKey = createPrivateKey(key.privateKeyPem);
    this.#clock = clock;
  }

  token(): string {
    const now = this.#clock.now();
    if (!this.#current || now - this.#current.issuedAt >= TOKEN_RENEW_AFTER_MS) {
      this.#current = { token: signProviderToken(this.#key, this.#privateKey, now), issuedAt: now };
    }
    return this.#current.token;
  }

  renew(): void {
    if (this.#current && this.#clock.now() - this.#current.issuedAt >= TOKEN_MIN_LIFETIME_MS) {
      this.#current = undefined;
    }
  }
}

/** The claims of a provider token whose ES256 signature `publicKey` verifies; undefined otherwise. */
export function verifyProviderToken(
  token: string,
  publicKey: KeyObject,
): { keyId: string; teamId: string; issuedAt: number } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, claims, signature] = parts as [string, string, string];
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: unknown; kid?: unknown };
    const body = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { iss?: unknown; iat?: unknown };
    if (head.alg !== 'ES256' || typeof head.kid !== 'string') return undefined;
    if (typeof body.iss !== 'string' || typeof body.iat !== 'number') return undefined;
    const valid = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    return valid ? { keyId: head.kid, teamId: body.iss, issuedAt: body.iat * 1000 } : undefined;
  } catch {
    return undefined;
  }
}

/** The header's `kid`, read without verifying anything: to find which key should verify it. */
export function providerTokenKeyId(token: string): string | undefined {
  try {
    const head = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as {
      kid?: unknown;
    };
    return typeof head.kid === 'string' ? head.kid : undefined;
  } catch {
    return undefined;
  }
}

export const publicKeyOf = (privateKeyPem: string): KeyObject => createPublicKey(privateKeyPem);

/** A new ES256 (P-256) private key in PEM, the form of Apple's `.p8` files: for the simulator and tests. */
export function newProviderKeyPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
}
