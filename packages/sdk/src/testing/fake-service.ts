import { isPlainObject } from '../contract/fields.js';
import {
  type DestinationState,
  type DropReason,
  devicesForTarget,
  type ErrorCode,
  IDEMPOTENCY_KEY_PATTERN,
  LIMITS,
  type Notification,
  type NotificationStatus,
  type Platform,
  type PushFailureReason,
  type StatusRecord,
  statusOf,
  utf8Length,
  validateSend,
} from '../contract/index.js';
import { statusAfter } from '../contract/records.js';
import { sceneCatalog } from '../contract/scenes.js';
import { DEV_DEVICES, MESSAGES, nextUtcMonthStart } from '../contract/service.js';
import { SERVICE_LIMITS } from '../contract/values.js';

/** A device of the fake account. */
export interface FakeDevice {
  name: string;
  platform: Platform;
}

/** What the fake service responds next instead of serving the request (see `responses`). */
export type ScriptedResponse =
  | { kind: 'response'; status: number; body?: string; headers?: Record<string, string> }
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

/** Every request that reached the fake service, retries and errors included. */
export interface RecordedRequest {
  method: string;
  url: string;
  /** Lower-cased header names, as sent. */
  headers: Record<string, string>;
  /** The body's text; empty for a GET. */
  body: string;
  /** What the fake responded with: a status, or `dropped` for a connection it dropped. */
  status: number | 'dropped';
}

export interface FakeFoxbellOptions {
  /** The account's devices. Default: a dev account's, an iPhone, an Apple Watch and a Vision Pro. */
  devices?: FakeDevice[];
  /** The send token the fake accepts. Default: a fixed, well-formed one. */
  token?: string;
  /** The clock of the records' timestamps. Default `Date.now` (which fake timers control). */
  now?: () => number;
}

const MONTHLY_SENDS = SERVICE_LIMITS.sendsPerAccountPerMonth;

/**
 * Ready-made responses for `failNext`, each as a real service (or the gateway in front of it)
 * would give it.
 */
export const responses = {
  /** `429 rate_limited` with `Retry-After` (seconds). */
  rateLimited: (retryAfter = 1): ScriptedResponse =>
    errorResponse('rate_limited', MESSAGES.rateLimited('token'), { 'retry-after': String(retryAfter) }),
  /** `429 quota_exceeded`: never retried. */
  quotaExceeded: (): ScriptedResponse => errorResponse('quota_exceeded', MESSAGES.quotaExceeded),
  /** `503 service_unavailable`, with `Retry-After` when given. */
  unavailable: (retryAfter?: number): ScriptedResponse =>
    errorResponse(
      'service_unavailable',
      MESSAGES.paused,
      retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
    ),
  /** `401 token_revoked`. */
  tokenRevoked: (): ScriptedResponse => errorResponse('token_revoked', 'this token was revoked'),
  /**
   * A gateway's `429`, with no error code and no `Retry-After`: `{ "message": … }` as the interface
   * describes it, or `{ body: 'none' }` for a gateway that sends no body at all.
   */
  gatewayRateLimit: ({ body = 'message' }: { body?: 'message' | 'none' } = {}): ScriptedResponse =>
    body === 'none'
      ? { kind: 'response', status: 429, body: '', headers: {} }
      : {
          kind: 'response',
          status: 429,
          body: JSON.stringify({ message: 'Too Many Requests' }),
          headers: { 'content-type': 'application/json' },
        },
  /** A proxy's `502` with a page of its own. */
  badGateway: (): ScriptedResponse => ({
    kind: 'response',
    status: 502,
    body: '<html><body>502 Bad Gateway</body></html>',
    headers: { 'content-type': 'text/html' },
  }),
  /** Any error the service has, with its code's status. */
  error: (code: ErrorCode, message = code, headers: Record<string, string> = {}): ScriptedResponse =>
    errorResponse(code, message, headers),
  /** The connection drops before a response (fetch rejects, as for a reset). */
  dropConnection: (): ScriptedResponse => ({ kind: 'drop', code: 'ECONNRESET' }),
};

/** An error response: its status is the code's, from the interface's table. */
function errorResponse(
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): ScriptedResponse {
  return {
    kind: 'response',
    status: statusOf(code),
    body: JSON.stringify({ error: { code, message } }),
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  };
}

interface Stored {
  id: string;
  fields: Notification;
  status: NotificationStatus;
  reason?: DropReason;
  destinations: {
    platform: Platform;
    state: DestinationState;
    push_status?: number;
    updated_at: string;
    reason?: PushFailureReason;
  }[];
  handled: { action: 'opened' | 'cleared'; platform: Platform; at: string }[];
}

/** The push status a failure of each reason comes with, where a push service returned one. */
const FAILURE_STATUS: Partial<Record<PushFailureReason, number>> = { gone: 410, refused: 400 };

/**
 * A Foxbell service in memory, for the tests of an app that sends notifications: give its
 * `fetch` to a real `Foxbell` client. It applies the service's contract (the same field checks,
 * the 16 KB rule, idempotency replay and conflicts), records what was sent, responds as it is
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
  readonly #scripted: ScriptedResponse[] = [];
  readonly #notifications = new Map<string, Stored>();
  readonly #keys = new Map<string, { fingerprint: string; id: string }>();
  #nextId = 1;
  #nextRequest = 1;

  constructor(options: FakeFoxbellOptions = {}) {
    this.token = options.token ?? `fox_send_${'Fake0'.repeat(6)}ab`;
    this.devices = options.devices ?? DEV_DEVICES;
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
      status: 0,
    };
    this.requests.push(recorded);
    const next = this.#scripted.shift();
    if (next?.kind === 'drop') {
      recorded.status = 'dropped';
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('socket hang up'), { code: next.code }),
      });
    }
    const response = next
      ? this.#respond(next.status, next.body ?? '', next.headers ?? {})
      : this.#serve(recorded);
    recorded.status = response.status;
    return response;
  };

  /** Responds to the next requests with these, in order, whatever they ask; then serves again. */
  failNext(...scripted: ScriptedResponse[]): this {
    this.#scripted.push(...scripted);
    return this;
  }

  /** The push service accepted it for every device its target reaches: `sent_to_push`. */
  deliver(id: string): StatusRecord {
    const stored = this.#route(id, { state: 'accepted', push_status: 200 });
    if (stored) this.#advance(stored, 'sent_to_push');
    return this.status(id);
  }

  /**
   * No device its target reaches will get it: each destination `failed_permanent` with this
   * `reason` (default `gone`, a push service's 410), so `waitFor` rejects with `UndeliverableError`.
   */
  fail(id: string, reason: PushFailureReason = 'gone'): StatusRecord {
    const pushStatus = FAILURE_STATUS[reason];
    this.#route(id, {
      state: 'failed_permanent',
      ...(pushStatus === undefined ? {} : { push_status: pushStatus }),
      reason,
    });
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

  /**
   * Routes it: each device its target reaches gets a destination of this state, or, when the
   * target reaches none, it is dropped (`no_matching_device`) and nothing is returned.
   */
  #route(
    id: string,
    outcome: Omit<Stored['destinations'][number], 'platform' | 'updated_at'>,
  ): Stored | undefined {
    const stored = this.#stored(id);
    const reached = devicesForTarget(stored.fields.target ?? 'auto', this.devices);
    if (reached.length === 0) {
      this.drop(id, 'no_matching_device');
      return undefined;
    }
    const at = this.#isoNow();
    stored.destinations = reached.map(({ platform }) => ({ platform, ...outcome, updated_at: at }));
    return stored;
  }

  #handle(id: string, action: 'opened' | 'cleared', platform?: Platform): StatusRecord {
    const stored = this.#stored(id);
    const on = platform ?? stored.destinations[0]?.platform ?? this.devices[0]?.platform ?? 'ios';
    stored.handled.push({ action, platform: on, at: this.#isoNow() });
    this.#advance(stored, action);
    return this.status(id);
  }

  #advance(stored: Stored, observed: 'sent_to_push' | 'opened' | 'cleared'): void {
    stored.status = statusAfter(stored.status, observed) ?? stored.status;
  }

  #stored(id: string): Stored {
    const stored = this.#notifications.get(id);
    if (!stored) throw new Error(`FakeFoxbell: no notification ${id} was sent`);
    return stored;
  }

  #isoNow(): string {
    return new Date(this.#now()).toISOString();
  }

  #serve(request: RecordedRequest): Response {
    const url = new URL(request.url);
    const path = url.pathname;
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      return this.#error('unauthorized', MESSAGES.unknownCredential);
    }
    if (request.method === 'POST' && path === '/v1/notifications') return this.#send(request);
    const status = /^\/v1\/notifications\/([^/]+)\/status$/.exec(path);
    if (request.method === 'GET' && status?.[1]) {
      const id = decodeURIComponent(status[1]);
      return this.#notifications.has(id)
        ? this.#json(200, this.status(id))
        : this.#error('not_found', MESSAGES.noSuch('notification'), 'id');
    }
    if (request.method === 'GET' && path === '/v1/scenes') return this.#json(200, sceneCatalog());
    if (request.method === 'GET' && path === '/v1/devices') return this.#json(200, { devices: this.devices });
    return this.#error('not_found', MESSAGES.noRoute(request.method));
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
      return this.#error('payload_too_large', MESSAGES.tooLarge(LIMITS.requestBytes));
    }
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      return this.#error('unsupported_media_type', MESSAGES.jsonOnly);
    }
    const key = request.headers['idempotency-key'];
    if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      return this.#error('invalid_field', MESSAGES.idempotencyKeyShape, 'Idempotency-Key');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body);
    } catch {
      return this.#error('invalid_request', MESSAGES.notJson);
    }
    if (!isPlainObject(parsed)) return this.#error('invalid_request', MESSAGES.notAnObject);
    if (key !== undefined) {
      const earlier = this.#keys.get(key);
      if (earlier && earlier.fingerprint !== request.body) {
        return this.#error('idempotency_conflict', MESSAGES.idempotencyConflict, 'Idempotency-Key');
      }
      if (earlier) return this.#accepted(earlier.id, { 'idempotent-replayed': 'true' });
    }
    const validated = validateSend(parsed, { unknownScenes: 'reject' });
    if (!validated.ok) {
      const { code, message, field } = validated.error;
      return this.#error(code, message, field);
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
    return this.#respond(
      202,
      JSON.stringify({ id, status: 'accepted', request_id: requestId }),
      {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': String(MONTHLY_SENDS),
        'x-ratelimit-remaining': String(MONTHLY_SENDS - this.sends.length),
        'x-ratelimit-reset': String(nextUtcMonthStart(this.#now()) / 1000),
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

  #error(code: ErrorCode, message: string, field?: string): Response {
    const requestId = this.#requestId();
    const body = {
      error: { code, message, ...(field === undefined ? {} : { field }) },
      request_id: requestId,
    };
    return this.#respond(
      statusOf(code),
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
