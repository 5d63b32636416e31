import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { Clock } from '../clock.js';
import { type ProviderKey, ProviderTokenSource } from './provider-token.js';
import type { PushRequest } from './push-request.js';

export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com';

export interface ApnsClientOptions {
  /** `https://…` (Apple, or the simulator with `ca`), or `http://…` for the simulator's cleartext h2c. */
  url: string;
  /** Certificates to trust besides the system's: the simulator's. */
  ca?: string | undefined;
  key: ProviderKey;
  clock: Clock;
  /** A push with no answer after this long is given up (and retried later by the worker). */
  requestTimeoutMs?: number;
}

/** What became of one push: Apple's answer, or none (the connection failed or timed out). */
export type PushResult =
  | { kind: 'answered'; status: number; reason?: string; timestamp?: number; apnsId?: string }
  | { kind: 'no_answer'; error: string };

interface QueuedPush {
  request: PushRequest;
  resolve: (result: PushResult) => void;
  /** Times it went back to the queue because a GOAWAY refused it unprocessed. */
  requeues: number;
}

/** A stream refused before the server processed it may be sent again on a new connection. */
const MAX_REQUEUES = 3;
const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL } = http2.constants;

/**
 * Apple's provider API over one long-lived HTTP/2 connection. Pushes beyond what the server's
 * SETTINGS allow in flight (APNs allows 1 until it has seen a valid token, then more) wait in a
 * queue. After a GOAWAY the connection takes no new streams; the ones above its last stream id
 * were never processed, so they go out again on a new connection and do not count as attempts.
 * It never retries an answer itself: what to do with a 429 or 5xx is the worker's call.
 */
export class ApnsClient {
  readonly #options: ApnsClientOptions;
  readonly #tokens: ProviderTokenSource;
  readonly #queue: QueuedPush[] = [];
  #session: ClientHttp2Session | undefined;
  /** Streams in flight per connection: an old one finishes its streams after a GOAWAY. */
  readonly #streams = new WeakMap<ClientHttp2Session, number>();
  #closed = false;

  constructor(options: ApnsClientOptions) {
    this.#options = options;
    this.#tokens = new ProviderTokenSource(options.key, options.clock);
  }

  push(request: PushRequest): Promise<PushResult> {
    if (this.#closed) return Promise.resolve({ kind: 'no_answer', error: 'client closed' });
    return new Promise((resolve) => {
      this.#queue.push({ request, resolve, requeues: 0 });
      this.#dispatch();
    });
  }

  /** Makes a new provider token before the next push (after `ExpiredProviderToken`). */
  renewToken(): void {
    this.#tokens.renew();
  }

  /** Fails what still waits, lets streams in flight finish, and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const queued of this.#queue.splice(0)) queued.resolve({ kind: 'no_answer', error: 'client closed' });
    const session = this.#session;
    if (session && !session.destroyed) await new Promise<void>((resolve) => session.close(resolve));
  }

  #connect(): ClientHttp2Session {
    const session = http2.connect(this.#options.url, {
      ...(this.#options.ca ? { ca: this.#options.ca } : {}),
      // Until the server's SETTINGS arrive, assume what APNs starts with.
      peerMaxConcurrentStreams: 1,
    });
    const forget = () => {
      if (this.#session === session) this.#session = undefined;
    };
    session.on('remoteSettings', () => this.#dispatch());
    session.on('goaway', () => {
      forget();
      // Queued pushes go out on a new connection.
      queueMicrotask(() => this.#dispatch());
    });
    session.on('error', forget);
    session.on('close', () => {
      forget();
      queueMicrotask(() => this.#dispatch());
    });
    // An idle connection must not keep the process alive.
    session.unref();
    this.#session = session;
    return session;
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const session = this.#session ?? this.#connect();
      const limit = session.remoteSettings.maxConcurrentStreams ?? 1;
      if ((this.#streams.get(session) ?? 0) >= Math.max(1, limit)) return;
      this.#start(session, this.#queue.shift() as QueuedPush);
    }
  }

  #start(session: ClientHttp2Session, queued: QueuedPush): void {
    let stream: ClientHttp2Stream;
    try {
      stream = session.request({
        ':method': 'POST',
        ':path': `/3/device/${queued.request.pushToken}`,
        authorization: `bearer ${this.#tokens.token()}`,
        ...queued.request.headers,
      });
    } catch {
      // The session closed under us (a GOAWAY just arrived): nothing was sent.
      if (this.#session === session) this.#session = undefined;
      this.#requeue(queued);
      return;
    }
    this.#streams.set(session, (this.#streams.get(session) ?? 0) + 1);

    let status: number | undefined;
    let apnsId: string | undefined;
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (result: PushResult | 'requeue') => {
      if (settled) return;
      settled = true;
      this.#streams.set(session, (this.#streams.get(session) ?? 1) - 1);
      if (result === 'requeue') this.#requeue(queued);
      else queued.resolve(result);
      this.#dispatch();
    };

    stream.setTimeout(this.#options.requestTimeoutMs ?? 10_000, () => {
      stream.close(NGHTTP2_CANCEL);
      finish({ kind: 'no_answer', error: 'timed out' });
    });
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
      const id = headers['apns-id'];
      if (typeof id === 'string') apnsId = id;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (status === undefined) return;
      finish({
        kind: 'answered',
        status,
        ...errorBodyOf(Buffer.concat(chunks)),
        ...(apnsId ? { apnsId } : {}),
      });
    });
    stream.on('error', () => {});
    stream.on('close', () => {
      if (status !== undefined && chunks.length === 0 && stream.rstCode === 0) {
        finish({ kind: 'answered', status, ...(apnsId ? { apnsId } : {}) });
      } else if (status === undefined && stream.rstCode === NGHTTP2_REFUSED_STREAM) {
        finish('requeue');
      } else {
        finish({ kind: 'no_answer', error: `stream closed (code ${stream.rstCode})` });
      }
    });
    stream.end(queued.request.payload);
  }

  #requeue(queued: QueuedPush): void {
    if (queued.requeues >= MAX_REQUEUES) {
      queued.resolve({ kind: 'no_answer', error: 'refused by several connections in a row' });
      return;
    }
    queued.requeues += 1;
    this.#queue.unshift(queued);
    queueMicrotask(() => this.#dispatch());
  }
}

/** Apple's error body: `{ "reason": "…", "timestamp": <ms> }` (timestamp with 410 only). */
function errorBodyOf(body: Buffer): { reason?: string; timestamp?: number } {
  if (body.length === 0) return {};
  try {
    const parsed = JSON.parse(body.toString()) as { reason?: unknown; timestamp?: unknown };
    return {
      ...(typeof parsed.reason === 'string' ? { reason: parsed.reason } : {}),
      ...(typeof parsed.timestamp === 'number' ? { timestamp: parsed.timestamp } : {}),
    };
  } catch {
    return {};
  }
}
