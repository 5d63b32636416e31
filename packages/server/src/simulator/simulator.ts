import { type KeyObject, randomUUID } from 'node:crypto';
import http2, {
  type Http2SecureServer,
  type Http2Server,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { providerTokenKeyId, publicKeyOf, verifyProviderToken } from '../delivery/apns/provider-token.js';
import { MAX_PAYLOAD_BYTES } from '../delivery/apns/push-request.js';
import { type Clock, isoTime, systemClock } from '../kernel/clock.js';
import { localCertificate } from './local-certificate.js';
import { DEFAULT_HISTORY, type HistoryBounds, PushHistory } from './push-history.js';

/** A push as the simulator received it, with the response it gave. */
export interface ReceivedPush {
  push_token: string;
  apns_id: string;
  headers: Record<string, string>;
  /** The payload parsed as JSON, or its text when it is not JSON. */
  payload: unknown;
  status: number;
  reason?: string;
  /** `<timestamp>` of arrival, by the simulator's clock. */
  at: string;
}

/** A response scripted for a push token's next push, used once, in order. */
export interface ScriptedApnsResponse {
  status?: number | undefined;
  reason?: string | undefined;
  /** Hold the response this long (real time). */
  delay_ms?: number | undefined;
  /** A 410's `timestamp` (epoch ms); default: now. */
  timestamp?: number | undefined;
  /** Reset the stream instead of responding: a push that gets no response. */
  reset?: boolean | undefined;
  /**
   * Send GOAWAY naming the stream before this one as the last processed, and reject this one
   * unprocessed: what a client sees when APNs closes a connection under it.
   */
  goaway?: boolean | undefined;
}

export interface SimulatorKey {
  keyId: string;
  teamId: string;
  /** A public key in PEM, or the `.p8` private key (its public half is used). */
  keyPem: string;
}

export interface ApnsSimulatorOptions {
  port?: number;
  host?: string;
  /** Cleartext h2c instead of TLS. */
  cleartext?: boolean;
  clock?: Clock;
  keys?: SimulatorKey[];
  /**
   * Without it, a push token not registered is taken on first use and bound to the topic it came
   * with (as a device that registered itself would be). With it, only registered tokens are known.
   */
  strictTokens?: boolean;
  /** How many pushes it remembers (DEFAULT_HISTORY). */
  history?: HistoryBounds;
  /**
   * Holds every response this long (real time), as Apple's servers across a network would: for
   * measuring what a send takes to reach a phone. Default 0.
   */
  roundTripMs?: number;
}

const TOKEN_LIFETIME_MS = 60 * 60_000;
const PUSH_TYPES = new Set([
  'alert',
  'background',
  'location',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'pushtotalk',
  'widgets',
  'controls',
]);
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const PUSH_TOKEN = /^[0-9a-fA-F]{64}$/;
/** How many streams a connection may have once it has shown a valid token. */
const TRUSTED_MAX_STREAMS = 1000;

interface TokenState {
  topic: string | undefined;
  /** Epoch ms since which the token is unregistered. */
  unregisteredAt: number | undefined;
}

/**
 * Apple's provider API, in process: HTTP/2 over TLS with a certificate made at start (or h2c),
 * Apple's paths, headers, checks in Apple's order with Apple's statuses and reasons, and Apple's
 * connection behaviour (one stream until a valid provider token, then many; GOAWAY on demand).
 * It records what each push token received and plays scripted responses, for tests and the device page.
 */
export class ApnsSimulator {
  readonly url: string;
  /** The certificate a client must trust (undefined for h2c). */
  readonly ca: string | undefined;
  readonly #server: Http2Server | Http2SecureServer;
  readonly #clock: Clock;
  readonly #strict: boolean;
  readonly #roundTripMs: number;
  readonly #keys = new Map<string, { teamId: string; publicKey: KeyObject }>();
  readonly #tokens = new Map<string, TokenState>();
  readonly #scripts = new Map<string, ScriptedApnsResponse[]>();
  readonly #received: PushHistory<ReceivedPush>;
  readonly #listeners = new Set<(push: ReceivedPush) => void>();
  readonly #sessions = new Set<ServerHttp2Session>();
  readonly #verifiedTokens = new WeakMap<
    ServerHttp2Session,
    { jwt: string; claims: { keyId: string; teamId: string; issuedAt: number } }
  >();

  private constructor(
    server: Http2Server | Http2SecureServer,
    url: string,
    ca: string | undefined,
    options: ApnsSimulatorOptions,
  ) {
    this.#server = server;
    this.url = url;
    this.ca = ca;
    this.#clock = options.clock ?? systemClock;
    this.#strict = options.strictTokens ?? false;
    this.#roundTripMs = options.roundTripMs ?? 0;
    this.#received = new PushHistory(options.history ?? DEFAULT_HISTORY);
    for (const key of options.keys ?? []) this.registerKey(key);
    server.on('session', (session: ServerHttp2Session) => {
      this.#sessions.add(session);
      session.on('close', () => this.#sessions.delete(session));
      session.on('error', () => {});
    });
    server.on('stream', (stream, headers) => this.#onStream(stream, headers));
  }

  static async start(options: ApnsSimulatorOptions = {}): Promise<ApnsSimulator> {
    const host = options.host ?? '127.0.0.1';
    // APNs allows one stream until the connection shows a valid token.
    const settings = { maxConcurrentStreams: 1 };
    let server: Http2Server | Http2SecureServer;
    let ca: string | undefined;
    if (options.cleartext) server = http2.createServer({ settings });
    else {
      const pems = await localCertificate('foxbell-apns-simulator');
      ca = pems.cert;
      server = http2.createSecureServer({ key: pems.key, cert: pems.cert, settings });
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    const url = `${options.cleartext ? 'http' : 'https'}://${shownHost}:${port}`;
    return new ApnsSimulator(server, url, ca, options);
  }

  registerKey(key: SimulatorKey): void {
    this.#keys.set(key.keyId, { teamId: key.teamId, publicKey: publicKeyOf(key.keyPem) });
  }

  /** Makes a push token known for `topic` (and registered again if it was unregistered). */
  registerToken(pushToken: string, topic: string): void {
    this.#tokens.set(pushToken.toLowerCase(), { topic, unregisteredAt: undefined });
  }

  /** From now on (or `at`), pushes to this token get `410 Unregistered`. */
  unregisterToken(pushToken: string, at?: number): void {
    const state = this.#tokens.get(pushToken.toLowerCase());
    this.#tokens.set(pushToken.toLowerCase(), {
      topic: state?.topic,
      unregisteredAt: at ?? this.#clock.now(),
    });
  }

  /** Appends responses for a push token's next pushes. */
  script(pushToken: string, responses: ScriptedApnsResponse[]): void {
    const key = pushToken.toLowerCase();
    this.#scripts.set(key, [...(this.#scripts.get(key) ?? []), ...responses]);
  }

  /** What was pushed and is still remembered, oldest first; to one push token when given. */
  received(pushToken?: string): ReceivedPush[] {
    return this.#received.items(pushToken?.toLowerCase());
  }

  /** How many pushes were received since the start or the last reset, in all and by status. */
  counts(): { received: number; by_status: Record<string, number> } {
    const byStatus = this.#received.counts();
    return { received: Object.values(byStatus).reduce((sum, n) => sum + n, 0), by_status: byStatus };
  }

  /** Calls `listener` with each push as it is received (the device page's live view); returns the unsubscribe. */
  onPush(listener: (push: ReceivedPush) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets what was received and every script; keys and tokens stay. */
  reset(): void {
    this.#received.clear();
    this.#scripts.clear();
  }

  /** Connections open now. */
  get connections(): number {
    return this.#sessions.size;
  }

  /** Sends GOAWAY on every open connection: streams after the last one it processed are rejected. */
  goaway(): void {
    for (const session of this.#sessions) session.goaway(http2.constants.NGHTTP2_NO_ERROR);
  }

  async close(): Promise<void> {
    for (const session of this.#sessions) session.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #onStream(stream: ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    stream.on('error', () => {});
    const chunks: Buffer[] = [];
    let size = 0;
    // Bounded: past the limit the rest is read and dropped, never kept.
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PAYLOAD_BYTES + 1) chunks.push(chunk);
    });
    stream.on('end', () => {
      void this.#respond(stream, headers, Buffer.concat(chunks), size);
    });
  }

  async #respond(stream: ServerHttp2Stream, headers: http2.IncomingHttpHeaders, body: Buffer, size: number) {
    if (this.#roundTripMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#roundTripMs));
    const apnsId = typeof headers['apns-id'] === 'string' ? headers['apns-id'] : randomUUID();
    const check = this.#check(stream.session as ServerHttp2Session, headers, size);
    let response: { status: number; reason?: string; timestamp?: number } = check.response;
    const pushToken = check.pushToken;
    if (pushToken !== undefined && response.status === 200) {
      const scripted = this.#scripts.get(pushToken)?.shift();
      if (scripted) {
        if (scripted.delay_ms) await new Promise((resolve) => setTimeout(resolve, scripted.delay_ms));
        if (scripted.reset) {
          this.#record(pushToken, apnsId, headers, body, { status: 0, reason: 'reset' });
          stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
          return;
        }
        if (scripted.goaway) {
          this.#record(pushToken, apnsId, headers, body, { status: 0, reason: 'goaway' });
          stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, (stream.id ?? 1) - 2);
          stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
          return;
        }
        response = {
          status: scripted.status ?? 200,
          ...(scripted.reason ? { reason: scripted.reason } : {}),
          ...(scripted.status === 410 ? { timestamp: scripted.timestamp ?? this.#clock.now() } : {}),
        };
      }
    }
    if (pushToken !== undefined) this.#record(pushToken, apnsId, headers, body, response);
    if (stream.destroyed) return;
    const responseHeaders = { ':status': response.status, 'apns-id': apnsId };
    if (response.status === 200) {
      stream.respond(responseHeaders, { endStream: true });
    } else {
      stream.respond({ ...responseHeaders, 'content-type': 'application/json' });
      stream.end(
        JSON.stringify({
          reason: response.reason,
          ...(response.timestamp !== undefined ? { timestamp: response.timestamp } : {}),
        }),
      );
    }
  }

  #record(
    pushToken: string,
    apnsId: string,
    headers: http2.IncomingHttpHeaders,
    body: Buffer,
    response: { status: number; reason?: string },
  ): void {
    const text = body.toString();
    let payload: unknown = text;
    try {
      payload = JSON.parse(text);
    } catch {}
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (name.startsWith(':') || name === 'authorization' || typeof value !== 'string') continue;
      kept[name] = value;
    }
    const push: ReceivedPush = {
      push_token: pushToken,
      apns_id: apnsId,
      headers: kept,
      payload,
      status: response.status,
      ...(response.reason ? { reason: response.reason } : {}),
      at: isoTime(this.#clock.now()),
    };
    this.#received.add(pushToken, push, String(response.status));
    for (const listener of this.#listeners) listener(push);
  }

  /**
   * Apple's checks, in Apple's order. `pushToken` is set once the request names a well-formed
   * one, so a push that got that far is recorded whatever the response.
   */
  #check(
    session: ServerHttp2Session,
    headers: http2.IncomingHttpHeaders,
    size: number,
  ): { response: { status: number; reason?: string; timestamp?: number }; pushToken?: string } {
    const reject = (status: number, reason: string, pushToken?: string) => ({
      response: { status, reason },
      ...(pushToken ? { pushToken } : {}),
    });
    if (headers[':method'] !== 'POST') return reject(405, 'MethodNotAllowed');
    const match = /^\/3\/device\/([^/?]*)$/.exec(headers[':path'] ?? '');
    if (!match) return reject(404, 'BadPath');
    const rawToken = match[1] ?? '';
    if (rawToken === '') return reject(400, 'MissingDeviceToken');
    if (!PUSH_TOKEN.test(rawToken)) return reject(400, 'BadDeviceToken');
    const pushToken = rawToken.toLowerCase();

    const apnsId = headers['apns-id'];
    if (apnsId !== undefined && (typeof apnsId !== 'string' || !UUID.test(apnsId))) {
      return reject(400, 'BadMessageId', pushToken);
    }
    const topic = headers['apns-topic'];
    if (typeof topic !== 'string' || topic === '') return reject(400, 'MissingTopic', pushToken);
    const collapseId = headers['apns-collapse-id'];
    if (typeof collapseId === 'string' && Buffer.byteLength(collapseId) > 64) {
      return reject(400, 'BadCollapseId', pushToken);
    }
    const priority = headers['apns-priority'];
    if (priority !== undefined && !['1', '5', '10'].includes(String(priority))) {
      return reject(400, 'BadPriority', pushToken);
    }
    const pushType = headers['apns-push-type'];
    if (pushType !== undefined && !PUSH_TYPES.has(String(pushType))) {
      return reject(400, 'InvalidPushType', pushToken);
    }
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(String(expiration))) {
      return reject(400, 'BadExpirationDate', pushToken);
    }

    const authorization = headers.authorization;
    if (typeof authorization !== 'string' || !authorization.startsWith('bearer ')) {
      return reject(403, 'MissingProviderToken', pushToken);
    }
    const jwt = authorization.slice('bearer '.length);
    // Like APNs, a connection's token is verified once and then recognised while it lasts.
    const verified = this.#verifiedTokens.get(session);
    let claims = verified?.jwt === jwt ? verified.claims : undefined;
    if (!claims) {
      const key = this.#keys.get(providerTokenKeyId(jwt) ?? '');
      const checked = key && verifyProviderToken(jwt, key.publicKey);
      if (!key || !checked || checked.teamId !== key.teamId) {
        return reject(403, 'InvalidProviderToken', pushToken);
      }
      claims = checked;
      this.#verifiedTokens.set(session, { jwt, claims });
    }
    if (this.#clock.now() - claims.issuedAt > TOKEN_LIFETIME_MS) {
      return reject(403, 'ExpiredProviderToken', pushToken);
    }
    // A valid token: this connection may now have many streams in flight.
    if (session.localSettings.maxConcurrentStreams !== TRUSTED_MAX_STREAMS) {
      session.settings({ maxConcurrentStreams: TRUSTED_MAX_STREAMS });
    }

    if (size === 0) return reject(400, 'PayloadEmpty', pushToken);
    if (size > MAX_PAYLOAD_BYTES) return reject(413, 'PayloadTooLarge', pushToken);

    let state = this.#tokens.get(pushToken);
    if (!state && !this.#strict) {
      state = { topic, unregisteredAt: undefined };
      this.#tokens.set(pushToken, state);
    }
    if (!state) return reject(400, 'BadDeviceToken', pushToken);
    if (state.topic === undefined) state.topic = topic;
    if (state.topic !== topic) return reject(400, 'DeviceTokenNotForTopic', pushToken);
    if (state.unregisteredAt !== undefined && state.unregisteredAt <= this.#clock.now()) {
      return {
        response: { status: 410, reason: 'Unregistered', timestamp: state.unregisteredAt },
        pushToken,
      };
    }
    return { response: { status: 200 }, pushToken };
  }
}
