/// <reference path="./types/http_ece.d.ts" />
import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { decrypt } from 'http_ece';
import { generate } from 'selfsigned';

/**
 * A Web Push service of our own (RFC 8030), since no real one is reachable here: HTTPS with a CA
 * of its own, subscriptions as a browser makes them, and for each push the checks a real service
 * makes. The VAPID token (RFC 8292) is verified against the key the server publishes, the body is
 * decrypted with the subscription's private key (RFC 8291, by `http_ece`), and `TTL`, `Urgency`
 * and `Topic` are recorded. Its responses can be scripted: `201`, `410`, `429` with `Retry-After`,
 * `500`, a status whose body trickles without end, or no response at all.
 */

/** A subscription as `PushSubscription.toJSON()` gives it. */
export interface Subscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

/** One push that reached the service, decrypted. */
export interface ReceivedPush {
  subscription: string;
  /** When it arrived, by the service's clock (`now`). */
  at: number;
  /** What it was responded with (`undefined`: no response, the test's hang). */
  status: number | undefined;
  /** Why it was rejected, when the service rejected it itself (a bad token, a body too long). */
  rejection?: string;
  ttl: string | undefined;
  urgency: string | undefined;
  topic: string | undefined;
  /** The encrypted body's length: a push service takes 4,096 bytes at most. */
  bodyBytes: number;
  /** The decrypted payload, parsed; undefined when it could not be decrypted. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read the payload field by field.
  payload: any;
  /** The VAPID token's claims, when it verified. */
  claims?: { aud: string; exp: number; sub: string };
}

/**
 * A subscription's keys as a browser makes them, for an endpoint of any push service: for tests
 * that register subscriptions (with Apple's push service, say) and never push to them.
 */
export function subscriptionAt(endpoint: string): Subscription {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint,
    expirationTime: null,
    keys: { p256dh: ecdh.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') },
  };
}

export type ScriptedPushResponse =
  | { status: number; retryAfter?: number }
  | { hang: true }
  /** The status at once, then a body a byte every `everyMs`, until the client closes. */
  | { status: number; trickleEveryMs: number };

export interface PushServiceOptions {
  /** The VAPID public key pushes must be signed with (`GET /v1/web-push/key`), read at each push. */
  vapidKey: () => Promise<string>;
  /** Milliseconds since the epoch, for the token's `exp`; default: the real clock. */
  now?: () => number;
  /**
   * `apple`: Apple's push service's rules as well (web.push.apple.com, what an iPhone's web app
   * subscribes with): a subject on this machine or without a domain is `403 BadJwtToken`, an
   * `Urgency` or `Topic` it does not take `400`, a body past the 4,096-byte record `413`, and a
   * subscription the browser dropped (`unsubscribe`) `410 Unregistered`. Each error has Apple's
   * JSON body, `{"reason": …}`.
   */
  mode?: 'rfc8030' | 'apple';
}

const URGENCIES = ['very-low', 'low', 'normal', 'high'];

export class LocalPushService {
  readonly url: string;
  /** The service's own CA certificate (PEM), for the server to trust. */
  readonly ca: string;
  /** `127.0.0.1:PORT`, as `--web-push-hosts` names it. */
  readonly host: string;
  readonly received: ReceivedPush[] = [];
  /**
   * Each TLS handshake a client ended before it was done, as Node's server reports it: a Node
   * client that does not trust this service's certificate hangs up mid-handshake.
   */
  readonly failedHandshakes: string[] = [];
  readonly #server: Server;
  readonly #options: PushServiceOptions;
  readonly #subscriptions = new Map<string, { ecdh: ECDH; auth: string }>();
  readonly #scripts = new Map<string, ScriptedPushResponse[]>();
  readonly #sockets = new Set<Socket>();
  readonly #gone = new Set<string>();
  #waiters: (() => void)[] = [];

  private constructor(server: Server, ca: string, options: PushServiceOptions) {
    this.#server = server;
    this.ca = ca;
    this.#options = options;
    const { port } = server.address() as AddressInfo;
    this.host = `127.0.0.1:${port}`;
    this.url = `https://${this.host}`;
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    server.on('tlsClientError', (error: Error) => {
      this.failedHandshakes.push(error.message);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void this.#take(request.url ?? '', request.headers, Buffer.concat(chunks))
          .then((pushResponse) => {
            if ('hang' in pushResponse) return;
            if ('reason' in pushResponse) {
              response.writeHead(pushResponse.status, { 'content-type': 'application/json' });
              response.end(JSON.stringify({ reason: pushResponse.reason }));
              return;
            }
            if ('trickleEveryMs' in pushResponse) {
              response.writeHead(pushResponse.status);
              const drip = setInterval(() => response.write('.'), pushResponse.trickleEveryMs);
              response.on('close', () => clearInterval(drip));
              return;
            }
            if (pushResponse.retryAfter !== undefined)
              response.setHeader('retry-after', String(pushResponse.retryAfter));
            response.writeHead(pushResponse.status).end();
          })
          // The published key is read from the server under test, which a test may have just
          // stopped: the push fails as a push service's own failure would (a 500), not as an
          // error of the test process.
          .catch((error: Error) => {
            if (response.headersSent) return void response.destroy();
            response.writeHead(500, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ reason: `the push service failed: ${error.message}` }));
          });
      });
    });
  }

  static async start(options: PushServiceOptions): Promise<LocalPushService> {
    // A name of its own: OpenSSL finds a certificate's issuer by name, so two services' CAs of one
    // name, trusted together, would stand for each other.
    const name = `local push service ${randomBytes(4).toString('hex')}`;
    const pems = await generate([{ name: 'commonName', value: name }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
      ],
    });
    const server = createServer({ cert: pems.cert, key: pems.private });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new LocalPushService(server, pems.cert, options);
  }

  /** A new subscription, as a browser would make one with this service. */
  subscribe(): Subscription {
    const id = randomBytes(16).toString('hex');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16).toString('base64url');
    this.#subscriptions.set(id, { ecdh, auth });
    return {
      endpoint: `${this.url}/push/${id}`,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey('base64url'), auth },
    };
  }

  /**
   * The browser dropped the subscription (iOS does when the web app's icon is deleted, or after
   * pushes that showed nothing): every push to it from now on is `410`.
   */
  unsubscribe(subscription: Subscription): void {
    this.#gone.add(idOf(subscription.endpoint));
  }

  /** Responds to the next pushes to `subscription` (its endpoint) with these, in order, then `201`. */
  script(subscription: Subscription, ...responses: ScriptedPushResponse[]): void {
    this.#scripts.set(idOf(subscription.endpoint), responses);
  }

  /** The pushes that reached `subscription`. */
  pushesTo(subscription: Subscription): ReceivedPush[] {
    const id = idOf(subscription.endpoint);
    return this.received.filter((push) => push.subscription === id);
  }

  /** Resolves once `count` pushes in all have reached the service. */
  async waitFor(count: number): Promise<void> {
    while (this.received.length < count) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Resolves once `count` handshakes in all have been rejected by clients. */
  async waitForFailedHandshakes(count: number): Promise<void> {
    while (this.failedHandshakes.length < count) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#server.close();
    await once(this.#server, 'close');
  }

  async #take(
    path: string,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
  ): Promise<PushResponse> {
    const id = /^\/push\/([0-9a-f]{32})$/.exec(path)?.[1] ?? '';
    const subscription = this.#subscriptions.get(id);
    const one = (name: string) => {
      const value = headers[name];
      return Array.isArray(value) ? value.join(',') : value;
    };
    const push: ReceivedPush = {
      subscription: id,
      at: (this.#options.now ?? Date.now)(),
      status: undefined,
      ttl: one('ttl'),
      urgency: one('urgency'),
      topic: one('topic'),
      bodyBytes: body.length,
      payload: undefined,
    };
    const apple = this.#options.mode === 'apple';
    // Apple's errors carry a reason in a JSON body; the plain service's carry none.
    const reject = (status: number, rejection: string, reason?: string): PushResponse => {
      push.status = status;
      push.rejection = rejection;
      return apple && reason ? { status, reason } : { status };
    };
    const pushResponse = await (async (): Promise<PushResponse> => {
      if (!subscription) return reject(404, 'no such subscription', 'BadDeviceToken');
      if (this.#gone.has(id)) return reject(410, 'unsubscribed', 'Unregistered');
      const claims = await this.#verifiedClaims(one('authorization'));
      if (typeof claims === 'string') return reject(403, claims, 'BadJwtToken');
      push.claims = claims;
      if (apple) {
        const rejectedSubject = appleRejectsSubject(claims.sub);
        if (rejectedSubject) return reject(403, rejectedSubject, 'BadJwtToken');
        if (push.urgency !== undefined && !URGENCIES.includes(push.urgency)) {
          return reject(400, `urgency ${push.urgency}`, 'BadUrgency');
        }
        if (push.topic !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(push.topic)) {
          return reject(400, `topic ${push.topic}`, 'BadTopic');
        }
      }
      if (push.ttl === undefined || !/^\d+$/.test(push.ttl))
        return reject(400, 'no TTL', 'BadExpirationDate');
      if (body.length > 4096) return reject(413, 'payload too large', 'PayloadTooLarge');
      if (one('content-encoding') !== 'aes128gcm') return reject(415, 'not aes128gcm');
      try {
        const plain = decrypt(body, {
          version: 'aes128gcm',
          privateKey: subscription.ecdh,
          authSecret: subscription.auth,
        });
        push.payload = JSON.parse(plain.toString('utf8'));
      } catch {
        return reject(400, 'could not be decrypted');
      }
      const next = this.#scripts.get(id)?.shift() ?? { status: 201 };
      if ('status' in next) push.status = next.status;
      return next;
    })();
    this.received.push(push);
    for (const wake of this.#waiters.splice(0)) wake();
    return pushResponse;
  }

  /** The VAPID token's claims if it verifies with the published key, or why it does not. */
  async #verifiedClaims(
    authorization: string | undefined,
  ): Promise<{ aud: string; exp: number; sub: string } | string> {
    const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
    if (!match) return 'no vapid authorization';
    const [token = '', key = ''] = [match[1], match[2]];
    if (key !== (await this.#options.vapidKey())) return 'not signed with the published key';
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const point = Buffer.from(key, 'base64url');
    const publicKey = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33, 65).toString('base64url'),
      },
      format: 'jwk',
    });
    const signed = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!signed) return 'bad signature';
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'ES256') return 'not ES256';
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      aud: string;
      exp: number;
      sub: string;
    };
    const now = Math.floor((this.#options.now ?? Date.now)() / 1000);
    if (claims.aud !== this.url) return `aud is ${claims.aud}, not ${this.url}`;
    if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) return 'exp is not within 24 hours';
    if (!/^(mailto:|https:)/.test(claims.sub ?? '')) return 'sub is not mailto: or https:';
    return claims;
  }
}

/** What the service responds: a scripted response, or an error with Apple's reason. */
type PushResponse = ScriptedPushResponse | { status: number; reason: string };

/**
 * Why Apple's push service rejects a VAPID subject, or undefined: it wants a `mailto:` or
 * `https:` address of a public host, and responds to anything on this machine with `403 BadJwtToken`.
 */
function appleRejectsSubject(sub: string): string | undefined {
  const host = (/^mailto:[^@]+@(.+)$/.exec(sub)?.[1] ?? URL.parse(sub)?.hostname ?? '').replace(
    /^\[|\]$/g,
    '',
  );
  if (/^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|::1|0\.0\.0\.0)$/i.test(host) || !host.includes('.')) {
    return `subject ${sub} is on this machine`;
  }
  return undefined;
}

function idOf(endpoint: string): string {
  return new URL(endpoint).pathname.split('/').at(-1) ?? '';
}
