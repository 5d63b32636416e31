import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { SecureContext } from 'node:tls';
import { trustingAlso } from '../../kernel/ca-certificates.js';
import type { Clock } from '../../kernel/clock.js';
import { tlsFailureOf } from '../transport.js';
import { type ProviderKey, ProviderTokenSource } from './provider-token.js';
import type { PushRequest } from './push-request.js';

export interface ApnsClientOptions {
  /** `https://…` (Apple, or the simulator with `ca`), or `http://…` for the simulator's cleartext h2c. */
  url: string;
  /** PEM certificates to trust besides Node's default ones: a simulator's. */
  ca?: string | undefined;
  key: ProviderKey;
  clock: Clock;
  /** A push with no response after this long (by `clock`) is given up, and retried later by the worker. */
  requestTimeoutMs?: number;
  /**
   * Told after each sweep for pushes past their deadline: a test that moved its clock waits for
   * the next one instead of sleeping (the sweep runs on a real timer, and reads the clock).
   */
  onSweep?: () => void;
}

/** What became of one push: Apple's response, or none (the connection failed or timed out). */
export type PushResult =
  | { kind: 'response'; status: number; reason?: string; timestamp?: number; apnsId?: string }
  | {
      kind: 'no_response';
      error: string;
      /** The connection failed on APNs' certificate or the TLS handshake: its error's code. */
      tlsCode?: string;
    };

interface QueuedPush {
  request: PushRequest;
  resolve: (result: PushResult) => void;
  /** Times it went back to the queue because a GOAWAY rejected it unprocessed. */
  requeues: number;
}

/** One connection, and its streams in flight: an old one finishes its streams after a GOAWAY. */
interface Connection {
  session: ClientHttp2Session;
  streams: number;
}

/** A push on the wire: what its stream's handlers read and fill in. */
interface InFlight {
  client: ApnsClient;
  queued: QueuedPush;
  connection: Connection;
  stream: ClientHttp2Stream;
  /** By the client's clock: past it, the push is given up. */
  deadline: number;
  status: number | undefined;
  apnsId: string | undefined;
  /** The response's body (Apple sends one with errors only); none if it outgrew `MAX_BODY_BYTES`. */
  body: Buffer[] | undefined;
  bodyBytes: number;
  /** The TLS error's code, when the stream ended with its connection's certificate or handshake failing. */
  tlsCode: string | undefined;
}

/** A stream rejected before the server processed it may be sent again on a new connection. */
const MAX_REQUEUES = 3;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Apple's error bodies are a reason and a timestamp; more than this is not one, and is not kept. */
const MAX_BODY_BYTES = 4096;
const { NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL, NGHTTP2_NO_ERROR, NGHTTP2_FLAG_END_STREAM } = http2.constants;

/**
 * The handlers every stream shares, with its push found through this symbol: a busy client
 * starts thousands of streams a second, and seven closures and a timer each added up.
 */
const PUSH = Symbol('push');
type PushStream = ClientHttp2Stream & { [PUSH]: InFlight };

function onResponse(
  this: PushStream,
  headers: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader,
  flags: number,
) {
  const push = this[PUSH];
  push.status = Number(headers[':status']);
  const id = headers['apns-id'];
  if (typeof id === 'string') push.apnsId = id;
  // Apple's 200 ends the stream with its headers. Any response with a body, whatever its status,
  // must be read to its end, or the stream never closes and an accepted push would time out.
  if ((flags & NGHTTP2_FLAG_END_STREAM) === 0) {
    push.body = [];
    this.on('data', onData);
  }
}

function onData(this: PushStream, chunk: Buffer) {
  const push = this[PUSH];
  push.bodyBytes += chunk.length;
  // Past the bound the body is no error body: drop it whole, and keep reading so the stream ends.
  if (push.bodyBytes > MAX_BODY_BYTES) push.body = undefined;
  else push.body?.push(chunk);
}

function onClose(this: PushStream) {
  const push = this[PUSH];
  const { status, apnsId } = push;
  if (status !== undefined && this.rstCode === NGHTTP2_NO_ERROR) {
    push.client[SETTLE](push, {
      kind: 'response',
      status,
      ...(push.body && push.body.length > 0 ? errorBodyOf(Buffer.concat(push.body)) : {}),
      ...(apnsId ? { apnsId } : {}),
    });
  } else if (status === undefined && this.rstCode === NGHTTP2_REFUSED_STREAM) {
    push.client[SETTLE](push, 'requeue');
  } else {
    push.client[SETTLE](push, {
      kind: 'no_response',
      error: `stream closed (code ${this.rstCode})`,
      ...(push.tlsCode === undefined ? {} : { tlsCode: push.tlsCode }),
    });
  }
}

/**
 * A stream error is followed by its close, which settles the push. A connection that fails its
 * TLS handshake ends its streams with that error: kept, so the push says so.
 */
function onError(this: PushStream, error: Error) {
  this[PUSH].tlsCode ??= tlsFailureOf(error);
}

/** Ends a push: the handlers call it; not part of the client's public surface. */
const SETTLE = Symbol('settle');

/**
 * Apple's provider API over one long-lived HTTP/2 connection. Pushes beyond what the server's
 * SETTINGS allow in flight (APNs allows 1 until it has seen a valid token, then more) wait in a
 * queue. After a GOAWAY the connection takes no new streams; the ones above its last stream id
 * were never processed, so they go out again on a new connection and do not count as attempts.
 * It never retries a response itself: what to do with a 429 or 5xx is the worker's call.
 */
export class ApnsClient {
  readonly #options: ApnsClientOptions;
  readonly #tokens: ProviderTokenSource;
  /** Made once, not per connection: it holds every CA Node trusts. */
  readonly #secureContext: SecureContext | undefined;
  readonly #queue: QueuedPush[] = [];
  #connection: Connection | undefined;
  /** Pushes on the wire, for the timeout sweep. */
  readonly #inFlight = new Set<InFlight>();
  #sweep: NodeJS.Timeout | undefined;
  #authorization = { token: '', header: '' };
  #closed = false;

  constructor(options: ApnsClientOptions) {
    this.#options = options;
    this.#tokens = new ProviderTokenSource(options.key, options.clock);
    this.#secureContext = options.ca ? trustingAlso(options.ca) : undefined;
  }

  push(request: PushRequest): Promise<PushResult> {
    if (this.#closed) return Promise.resolve({ kind: 'no_response', error: 'client closed' });
    return new Promise((resolve) => {
      this.#queue.push({ request, resolve, requeues: 0 });
      this.#dispatch();
    });
  }

  /**
   * Signs the provider token and opens the connection now: a TLS handshake with Apple and an ES256
   * signature otherwise fall on the first push. Resolves once the server's SETTINGS have arrived
   * (how many streams it allows); rejects if the connection fails first.
   */
  warm(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('client closed'));
    this.#authorizationHeader();
    if (this.#connection) return Promise.resolve();
    const { session } = this.#connect();
    return new Promise((resolve, reject) => {
      session.once('remoteSettings', () => resolve());
      session.once('error', reject);
      session.once('close', () => reject(new Error('connection closed')));
    });
  }

  /** Makes a new provider token before the next push (after `ExpiredProviderToken`). */
  renewToken(): void {
    this.#tokens.renew();
  }

  /** Fails what still waits, lets streams in flight finish, and closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const queued of this.#queue.splice(0))
      queued.resolve({ kind: 'no_response', error: 'client closed' });
    const session = this.#connection?.session;
    if (session?.connecting) {
      // Still connecting (a push service that does not respond): nothing is in flight on it, and
      // closing would wait for a handshake that may never end.
      session.destroy();
    } else if (session && !session.destroyed) await new Promise<void>((resolve) => session.close(resolve));
    clearInterval(this.#sweep);
    this.#sweep = undefined;
  }

  #connect(): Connection {
    const session = http2.connect(this.#options.url, {
      ...(this.#secureContext ? { secureContext: this.#secureContext } : {}),
      // Until the server's SETTINGS arrive, assume what APNs starts with.
      peerMaxConcurrentStreams: 1,
    });
    const connection: Connection = { session, streams: 0 };
    const forget = () => {
      if (this.#connection === connection) this.#connection = undefined;
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
    this.#connection = connection;
    return connection;
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const connection = this.#connection ?? this.#connect();
      const limit = connection.session.remoteSettings.maxConcurrentStreams ?? 1;
      if (connection.streams >= Math.max(1, limit)) return;
      this.#start(connection, this.#queue.shift() as QueuedPush);
    }
  }

  #start(connection: Connection, queued: QueuedPush): void {
    let stream: ClientHttp2Stream;
    try {
      stream = connection.session.request({
        ':method': 'POST',
        ':path': `/3/device/${queued.request.pushToken}`,
        authorization: this.#authorizationHeader(),
        ...queued.request.headers,
      });
    } catch {
      // The session closed under us (a GOAWAY just arrived): nothing was sent.
      if (this.#connection === connection) this.#connection = undefined;
      this.#requeue(queued);
      return;
    }
    connection.streams += 1;
    const push: InFlight = {
      client: this,
      queued,
      connection,
      stream,
      deadline: this.#options.clock.now() + (this.#options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
      status: undefined,
      apnsId: undefined,
      body: undefined,
      bodyBytes: 0,
      tlsCode: undefined,
    };
    (stream as PushStream)[PUSH] = push;
    this.#inFlight.add(push);
    this.#sweep ??= this.#startSweep();
    stream.on('response', onResponse);
    stream.on('close', onClose);
    stream.on('error', onError);
    stream.end(queued.request.payload);
  }

  [SETTLE](push: InFlight, result: PushResult | 'requeue'): void {
    if (!this.#inFlight.delete(push)) return;
    push.connection.streams -= 1;
    if (this.#inFlight.size === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
    }
    if (result === 'requeue') this.#requeue(push.queued);
    else push.queued.resolve(result);
    this.#dispatch();
  }

  /**
   * One timer for every push in flight, instead of one per stream: a push past its deadline is
   * cancelled and given up (the worker tries it again later). Checked a tenth of the timeout
   * apart, so a push is given up at most that much late.
   */
  #startSweep(): NodeJS.Timeout {
    const timeout = this.#options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const sweep = setInterval(
      () => {
        const now = this.#options.clock.now();
        for (const push of this.#inFlight) {
          if (now < push.deadline) continue;
          push.stream.close(NGHTTP2_CANCEL);
          this[SETTLE](push, { kind: 'no_response', error: 'timed out' });
        }
        this.#options.onSweep?.();
      },
      Math.max(10, Math.min(1000, timeout / 10)),
    );
    sweep.unref();
    return sweep;
  }

  /** `bearer <provider token>`, made again only when the token changes. */
  #authorizationHeader(): string {
    const token = this.#tokens.token();
    if (token !== this.#authorization.token) this.#authorization = { token, header: `bearer ${token}` };
    return this.#authorization.header;
  }

  #requeue(queued: QueuedPush): void {
    if (queued.requeues >= MAX_REQUEUES) {
      queued.resolve({ kind: 'no_response', error: 'refused by several connections in a row' });
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
