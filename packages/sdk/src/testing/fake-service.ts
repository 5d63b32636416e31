import {
  type DestinationState,
  type DropReason,
  ERROR_CODES,
  type ErrorCode,
  IDEMPOTENCY_KEY_PATTERN,
  isPlainObject,
  LIMITS,
  type Notification,
  type NotificationStatus,
  type Platform,
  progressOf,
  type StatusRecord,
  utf8Length,
  validateSend,
} from '../contract/index.js';
import { sceneCatalog } from '../contract/scenes.js';

/** A device of the fake account. */
export interface FakeDevice {
  name: string;
  platform: Platform;
}

/** What the fake service answers next instead of serving the request (see `answers`). */
export type ScriptedAnswer =
  | { kind: 'answer'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'drop'; code: string };

/** A send the fake service accepted: the fields as it read them, and the request as it came. */
export interface RecordedSend {
  id: string;
  /** The fields after the contract's checks, every default applied: what a real service stores. */
  fields: Notification;
  /** The request exactly as the SDK sent it. */
  request: RecordedRequest;
  idempotencyKey: string | undefined;
}

/** Every request that reached the fake service, retries and refusals included. */
export interface RecordedRequest {
  method: string;
  url: string;
  /** Lower-cased header names, as sent. */
  headers: Record<string, string>;
  /** The body's text; empty for a GET. */
  body: string;
  /** What the fake answered: a status, or `dropped` for a connection it dropped. */
  answer: number | 'dropped';
}

export interface FakeFoxbellOptions {
  /** The account's devices. Default: an iPhone, an Apple Watch and a Vision Pro. */
  devices?: FakeDevice[];
  /** The send token the fake accepts. Default: a fixed, well-formed one. */
  token?: string;
  /** The clock of the records' timestamps. Default `Date.now` (which fake timers control). */
  now?: () => number;
}

const DEFAULT_DEVICES: FakeDevice[] = [
  { name: 'iPhone', platform: 'ios' },
  { name: 'Apple Watch', platform: 'watchos' },
  { name: 'Vision Pro', platform: 'visionos' },
];
const TARGET_PLATFORMS: Record<string, Platform> = { iphone: 'ios', watch: 'watchos', vision: 'visionos' };
const MONTHLY_SENDS = 10_000;

/**
 * Ready-made answers for `failNext`, each as a real service (or the gateway in front of it)
 * would give it.
 */
export const answers = {
  /** `429 rate_limited` with `Retry-After` (seconds). */
  rateLimited: (retryAfter = 1): ScriptedAnswer =>
    errorAnswer(429, 'rate_limited', 'too many sends this minute', { 'retry-after': String(retryAfter) }),
  /** `429 quota_exceeded`: never retried. */
  quotaExceeded: (): ScriptedAnswer => errorAnswer(429, 'quota_exceeded', 'the monthly quota is used up'),
  /** `503 service_unavailable`, with `Retry-After` when given. */
  unavailable: (retryAfter?: number): ScriptedAnswer =>
    errorAnswer(
      503,
      'service_unavailable',
      'sends are paused',
      retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
    ),
  /** `401 token_revoked`. */
  tokenRevoked: (): ScriptedAnswer => errorAnswer(401, 'token_revoked', 'this token was revoked'),
  /**
   * A gateway's `429`, with no error code and no `Retry-After`: `{ "message": … }` as the interface
   * describes it, or `{ body: 'none' }` for a gateway that sends no body at all.
   */
  gatewayRateLimit: ({ body = 'message' }: { body?: 'message' | 'none' } = {}): ScriptedAnswer =>
    body === 'none'
      ? { kind: 'answer', status: 429, body: '', headers: {} }
      : {
          kind: 'answer',
          status: 429,
          body: JSON.stringify({ message: 'Too Many Requests' }),
          headers: { 'content-type': 'application/json' },
        },
  /** A proxy's `502` with a page of its own. */
  badGateway: (): ScriptedAnswer => ({
    kind: 'answer',
    status: 502,
    body: '<html><body>502 Bad Gateway</body></html>',
    headers: { 'content-type': 'text/html' },
  }),
  /** Any error the service has, with its code's status. */
  error: (code: ErrorCode, message = code, headers: Record<string, string> = {}): ScriptedAnswer =>
    errorAnswer(ERROR_CODES[code].status, code, message, headers),
  /** The connection drops before an answer (fetch rejects, as for a reset). */
  dropConnection: (): ScriptedAnswer => ({ kind: 'drop', code: 'ECONNRESET' }),
};

function errorAnswer(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): ScriptedAnswer {
  return {
    kind: 'answer',
    status,
    body: JSON.stringify({ error: { code, message } }),
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  };
}

interface Stored {
  id: string;
  fields: Notification;
  status: NotificationStatus;
  reason?: DropReason;
  destinations: { platform: Platform; state: DestinationState; push_status?: number; updated_at: string }[];
  handled: { action: 'opened' | 'cleared'; platform: Platform; at: string }[];
}

/**
 * A Foxbell service in memory, for the tests of an app that sends notifications: give its
 * `fetch` to a real `Foxbell` client. It applies the service's contract (the same field checks,
 * the 16 KB rule, idempotency replay and conflicts), records what was sent, answers as it is
 * told (`failNext`), and moves notifications through their states on request. It starts no timer
 * and opens no socket, so fake timers (vitest's, jest's) drive the client's retries.
 */
export class FakeFoxbell {
  readonly token: string;
  readonly baseUrl = 'https://foxbell.test';
  /** Every send accepted, oldest first (replays are not sends). */
  readonly sends: RecordedSend[] = [];
  /** Every request that arrived, oldest first. */
  readonly requests: RecordedRequest[] = [];
  readonly devices: readonly FakeDevice[];
  readonly #now: () => number;
  readonly #scripted: ScriptedAnswer[] = [];
  readonly #notifications = new Map<string, Stored>();
  readonly #keys = new Map<string, { fingerprint: string; id: string }>();
  #nextId = 1;
  #nextRequest = 1;

  constructor(options: FakeFoxbellOptions = {}) {
    this.token = options.token ?? `fox_send_${'Fake0'.repeat(6)}ab`;
    this.devices = options.devices ?? DEFAULT_DEVICES;
    this.#now = options.now ?? Date.now;
  }

  /** Give this to `new Foxbell({ fetch })`. */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const headers: Record<string, string> = {};
    new Headers(init.headers ?? request.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body =
      init.body === undefined || init.body === null ? await request.text() : await bodyText(init.body);
    const recorded: RecordedRequest = {
      method: init.method ?? request.method,
      url: request.url,
      headers,
      body,
      answer: 0,
    };
    this.requests.push(recorded);
    const next = this.#scripted.shift();
    if (next?.kind === 'drop') {
      recorded.answer = 'dropped';
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('socket hang up'), { code: next.code }),
      });
    }
    const response = next
      ? this.#respond(next.status, next.body ?? '', next.headers ?? {})
      : this.#serve(recorded);
    recorded.answer = response.status;
    return response;
  };

  /** Answers the next requests with these, in order, whatever they ask; then serves again. */
  failNext(...scripted: ScriptedAnswer[]): this {
    this.#scripted.push(...scripted);
    return this;
  }

  /** The push service accepted it for every device its target reaches: `sent_to_push`. */
  deliver(id: string): StatusRecord {
    const stored = this.#stored(id);
    const reached = this.#reached(stored.fields.target ?? 'auto');
    if (reached.length === 0) return this.drop(id, 'no_matching_device');
    const at = this.#isoNow();
    stored.destinations = reached.map((device) => ({
      platform: device.platform,
      state: 'accepted',
      push_status: 200,
      updated_at: at,
    }));
    this.#advance(stored, 'sent_to_push');
    return this.status(id);
  }

  /** The person opened it on a device (the first reached, by default). */
  open(id: string, platform?: Platform): StatusRecord {
    return this.#handle(id, 'opened', platform);
  }

  /** The person dismissed it. */
  clear(id: string, platform?: Platform): StatusRecord {
    return this.#handle(id, 'cleared', platform);
  }

  /** It will never be sent: `dropped` with this reason. */
  drop(id: string, reason: DropReason): StatusRecord {
    const stored = this.#stored(id);
    stored.status = 'dropped';
    stored.reason = reason;
    return this.status(id);
  }

  /** The status record, as `GET /v1/notifications/{id}/status` gives it. */
  status(id: string): StatusRecord {
    const { fields: _, ...record } = this.#stored(id);
    return structuredClone(record) as StatusRecord;
  }

  #handle(id: string, action: 'opened' | 'cleared', platform?: Platform): StatusRecord {
    const stored = this.#stored(id);
    const on = platform ?? stored.destinations[0]?.platform ?? this.devices[0]?.platform ?? 'ios';
    stored.handled.push({ action, platform: on, at: this.#isoNow() });
    this.#advance(stored, action);
    return this.status(id);
  }

  #advance(stored: Stored, status: NotificationStatus): void {
    if (stored.status !== 'dropped' && progressOf(status) > progressOf(stored.status)) stored.status = status;
  }

  #stored(id: string): Stored {
    const stored = this.#notifications.get(id);
    if (!stored) throw new Error(`FakeFoxbell: no notification ${id} was sent`);
    return stored;
  }

  #reached(target: string): FakeDevice[] {
    if (target === 'auto') return [...this.devices];
    const platform = TARGET_PLATFORMS[target];
    if (platform) return this.devices.filter((device) => device.platform === platform);
    const named = this.devices.filter((device) => device.name === target);
    return named.length === 1 ? named : [];
  }

  #isoNow(): string {
    return new Date(this.#now()).toISOString();
  }

  #serve(request: RecordedRequest): Response {
    const url = new URL(request.url);
    const path = url.pathname;
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      return this.#error(401, 'unauthorized', 'no such credential');
    }
    if (request.method === 'POST' && path === '/v1/notifications') return this.#send(request);
    const status = /^\/v1\/notifications\/([^/]+)\/status$/.exec(path);
    if (request.method === 'GET' && status?.[1]) {
      const id = decodeURIComponent(status[1]);
      return this.#notifications.has(id)
        ? this.#json(200, this.status(id))
        : this.#error(404, 'not_found', 'no such notification');
    }
    if (request.method === 'GET' && path === '/v1/scenes') return this.#json(200, sceneCatalog());
    if (request.method === 'GET' && path === '/v1/devices') return this.#json(200, { devices: this.devices });
    return this.#error(404, 'not_found', `no route for ${request.method} at this path`);
  }

  #send(request: RecordedRequest): Response {
    const size =
      `${request.method} ${new URL(request.url).pathname} HTTP/1.1\r\n`.length +
      Object.entries(request.headers).reduce(
        (sum, [name, value]) => sum + name.length + utf8Length(value) + 4,
        0,
      ) +
      utf8Length(request.body);
    if (size > LIMITS.requestBytes) {
      return this.#error(413, 'payload_too_large', `the request is over ${LIMITS.requestBytes} bytes`);
    }
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      return this.#error(415, 'unsupported_media_type', 'this endpoint takes application/json only');
    }
    const key = request.headers['idempotency-key'];
    if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      return this.#error(
        400,
        'invalid_field',
        'Idempotency-Key must be 1 to 255 printable ASCII characters',
        'Idempotency-Key',
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body);
    } catch {
      return this.#error(400, 'invalid_request', 'the body is not valid JSON');
    }
    if (!isPlainObject(parsed)) return this.#error(400, 'invalid_request', 'the body must be a JSON object');
    if (key !== undefined) {
      const earlier = this.#keys.get(key);
      if (earlier && earlier.fingerprint !== request.body) {
        return this.#error(409, 'idempotency_conflict', 'this key was used for another request');
      }
      if (earlier) return this.#accepted(earlier.id, { 'idempotent-replayed': 'true' });
    }
    const validated = validateSend(parsed, { unknownScenes: 'reject' });
    if (!validated.ok) {
      const { code, message, field } = validated.error;
      return this.#error(ERROR_CODES[code].status, code, message, field);
    }
    const id = `ntf_fake${String(this.#nextId++).padStart(6, '0')}`;
    this.#notifications.set(id, {
      id,
      fields: validated.value,
      status: 'accepted',
      destinations: [],
      handled: [],
    });
    if (key !== undefined) this.#keys.set(key, { fingerprint: request.body, id });
    this.sends.push({ id, fields: validated.value, request, idempotencyKey: key });
    return this.#accepted(id);
  }

  #accepted(id: string, extra: Record<string, string> = {}): Response {
    const requestId = this.#requestId();
    const reset = new Date(this.#now());
    return this.#respond(
      202,
      JSON.stringify({ id, status: 'accepted', request_id: requestId }),
      {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': String(MONTHLY_SENDS),
        'x-ratelimit-remaining': String(MONTHLY_SENDS - this.sends.length),
        'x-ratelimit-reset': String(Date.UTC(reset.getUTCFullYear(), reset.getUTCMonth() + 1, 1) / 1000),
        ...extra,
      },
      requestId,
    );
  }

  #json(status: number, value: unknown): Response {
    return this.#respond(status, JSON.stringify(value), {
      'content-type': 'application/json; charset=utf-8',
    });
  }

  #error(status: number, code: string, message: string, field?: string): Response {
    const requestId = this.#requestId();
    const body = {
      error: { code, message, ...(field === undefined ? {} : { field }) },
      request_id: requestId,
    };
    return this.#respond(
      status,
      JSON.stringify(body),
      { 'content-type': 'application/json; charset=utf-8' },
      requestId,
    );
  }

  #respond(
    status: number,
    body: string,
    headers: Record<string, string>,
    requestId = this.#requestId(),
  ): Response {
    return new Response(status === 204 ? null : body, {
      status,
      headers: { 'x-request-id': requestId, ...headers },
    });
  }

  #requestId(): string {
    return `req_fake${String(this.#nextRequest++).padStart(6, '0')}`;
  }
}

async function bodyText(body: BodyInit): Promise<string> {
  return new Response(body).text();
}
