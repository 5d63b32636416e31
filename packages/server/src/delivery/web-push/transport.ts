import { Agent } from 'undici';
import webPush from 'web-push';
import { trustingAlso } from '../../kernel/ca-certificates.js';
import type { Clock } from '../../kernel/clock.js';
import {
  NO_RESPONSE,
  type PushDestination,
  type PushOutcome,
  type PushTransport,
  tlsFailureOf,
} from '../transport.js';
import { PRIVATE_ADDRESS, publicOnlyLookup, type Resolver, systemResolver } from './address-guard.js';
import type { PushHosts } from './hosts.js';
import { webPushKeysOf } from './keys.js';
import { webPushPayload } from './payload.js';
import { topicOf, ttlSeconds, URGENCY } from './request.js';
import { judgeWebPushResponse } from './responses.js';
import type { VapidKeys } from './vapid.js';

// web-push is CommonJS whose exports Node cannot name statically: taken from its default export.
const { encrypt, getVapidHeaders } = webPush;

export interface WebPushOptions {
  /** The deployment's key pair (made once, kept in the database). */
  keys: () => Promise<VapidKeys>;
  /** The VAPID `sub`: a `mailto:` or `https:` address the push service can reach the operator at. */
  subject: string;
  /** The push services it may connect to; a subscription elsewhere is rejected without a connection. */
  hosts: PushHosts;
  clock: Clock;
  /** PEM certificates to trust besides Node's default ones (`--web-push-ca`). */
  ca?: string | undefined;
  /** How push services' names are resolved (default: the system's); tests give their own. */
  resolve?: Resolver;
  /**
   * How long a push may take, from its first byte to the last of its response, before it counts as
   * none (default 10 s): however slowly a push service trickles, a push frees its slot in time.
   */
  timeoutMs?: number;
}

/**
 * A push that was not sent, and never will be: for where it would go (the allowlist, the address
 * guard), or for the push service's certificate. The device is not the trouble: it stays active.
 */
const unsent = (
  failure: 'not_allowed' | 'address_refused' | 'tls',
  host: string | undefined,
  more: Partial<PushOutcome> = {},
): PushOutcome => ({
  verdict: 'failed_permanent',
  status: null,
  failure,
  host,
  deactivateDevice: null,
  pauseCredential: false,
  ...more,
});

/** An error and the errors it wraps (undici wraps a connection's). */
function causes(error: unknown): NodeJS.ErrnoException[] {
  const chain: NodeJS.ErrnoException[] = [];
  for (let at = error; at instanceof Error && chain.length < 5; at = at.cause) chain.push(at);
  return chain;
}

/** Of a response's body, what is read to keep its connection (undici's default); a longer one is cut. */
const MAX_RESPONSE_READ = 128 * 1024;

/** A VAPID token lives 12 hours (at most 24, RFC 8292); a new one is signed with an hour left. */
const TOKEN_LIFE_S = 12 * 3600;
const RENEW_BEFORE_S = 3600;

/**
 * Web Push as a transport (RFC 8030): the payload encrypted for the subscription (RFC 8291,
 * `aes128gcm`, by the `web-push` library), signed for with the server's VAPID key (RFC 8292), and
 * posted to its endpoint over kept-alive connections (undici), one pool per push service.
 *
 * The VAPID token is signed once per push service and kept until an hour before it expires:
 * signing one per push (as `web-push`'s own `sendNotification` does) costs an ECDSA signature
 * each time for the same bytes.
 */
export class WebPushTransport implements PushTransport {
  readonly #options: WebPushOptions;
  readonly #agent: Agent;
  readonly #tokens = new Map<string, { authorization: string; expiresAt: number }>();
  readonly #timeoutMs: number;

  constructor(options: WebPushOptions) {
    this.#options = options;
    const timeout = options.timeoutMs ?? 10_000;
    this.#timeoutMs = timeout;
    this.#agent = new Agent({
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connectTimeout: timeout,
      connect: {
        lookup: publicOnlyLookup(options.resolve ?? systemResolver),
        ...(options.ca === undefined ? {} : { secureContext: trustingAlso(options.ca) }),
      },
    });
  }

  async push(destination: PushDestination): Promise<PushOutcome> {
    const keys = webPushKeysOf(destination.address);
    const endpoint = URL.parse(destination.address.key);
    // Registration checked it; the allowlist may have changed since. Never connect elsewhere.
    if (!keys || endpoint?.protocol !== 'https:' || !this.#options.hosts.allows(endpoint)) {
      return unsent('not_allowed', endpoint?.host);
    }
    const { notification, expiresAt } = destination;
    const body = encrypt(keys.p256dh, keys.auth, webPushPayload(destination), 'aes128gcm').cipherText;
    const headers: Record<string, string> = {
      'content-encoding': 'aes128gcm',
      'content-type': 'application/octet-stream',
      ttl: String(ttlSeconds(expiresAt, this.#options.clock.now())),
      urgency: URGENCY[notification.level],
    };
    if (notification.tag !== undefined) headers.topic = topicOf(notification.tag);
    try {
      // The key pair comes from the database the first time: one that does not respond is no response.
      headers.authorization = await this.#authorization(endpoint.origin);
      // One deadline for the whole exchange: undici's own timeouts count only the gaps between
      // chunks, so a response trickled a byte at a time would hold this push's slot for good.
      const deadline = AbortSignal.timeout(this.#timeoutMs);
      const response = await this.#agent.request({
        origin: endpoint.origin,
        path: `${endpoint.pathname}${endpoint.search}`,
        method: 'POST',
        headers,
        body,
        signal: deadline,
      });
      // The status is the response; the body says nothing more. It is read so that the connection is
      // reused, within the same deadline: one still trickling then is cut (its connection closed),
      // and the status stands, so a push the service took is not pushed again.
      await response.body.dump({ limit: MAX_RESPONSE_READ, signal: deadline }).catch(() => {});
      // Its host for the log: the endpoint's path is a capability, as good as a password.
      return { ...judgeWebPushResponse(response.statusCode), host: endpoint.host };
    } catch (error) {
      const chain = causes(error);
      // An allowed name that resolves to this machine or its network: rejected for good, unsent.
      const guarded = chain.find((cause) => cause.code === PRIVATE_ADDRESS);
      if (guarded) return unsent('address_refused', endpoint.host, { error: guarded.message });
      const tlsCode = tlsFailureOf(error);
      if (tlsCode !== undefined) return unsent('tls', endpoint.host, { tlsCode });
      // Why no response came, by its code (ECONNREFUSED, UND_ERR_SOCKET) or name (TimeoutError).
      const code = chain.find((cause) => typeof cause.code === 'string')?.code ?? chain[0]?.name;
      return { ...NO_RESPONSE, host: endpoint.host, error: code };
    }
  }

  async #authorization(audience: string): Promise<string> {
    const now = Math.floor(this.#options.clock.now() / 1000);
    const kept = this.#tokens.get(audience);
    if (kept && kept.expiresAt - RENEW_BEFORE_S > now) return kept.authorization;
    const keys = await this.#options.keys();
    const expiresAt = now + TOKEN_LIFE_S;
    const { Authorization } = getVapidHeaders(
      audience,
      this.#options.subject,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
      expiresAt,
    );
    this.#tokens.set(audience, { authorization: Authorization, expiresAt });
    return Authorization;
  }

  close(): Promise<void> {
    return this.#agent.close();
  }
}
