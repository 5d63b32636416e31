import {
  ANY_SEND_TOKEN_PATTERN,
  IGNORED_BODY_FIELDS,
  isPlainObject,
  PATH_TOKEN_PATTERN,
} from './contract/fields.js';
import {
  catalogSceneSchema,
  checkSend,
  type Device,
  deviceListSchema,
  type FieldError,
  IDEMPOTENCY_KEY_PATTERN,
  LIMITS,
  type SendFields,
  type StatusRecord,
  sendResponseSchema,
  statusRecordSchema,
  utf8Length,
} from './contract/index.js';
import { type ProgressStatus, progressOf, willNotArrive } from './contract/records.js';
import type { CatalogScene } from './contract/scenes.js';
import { FoxbellError, TimeoutError, UndeliverableError, ValidationError } from './errors.js';
import type { RequestHooks } from './hooks.js';
import { parseJson } from './internal/json.js';
import { logOf } from './internal/log.js';
import { type HttpResponse, newTransport, send, sleep, type Transport } from './internal/request.js';
import { SDK_VERSION } from './internal/version.js';
import type { Logger, LogLevel } from './logging.js';
import { FoxbellPromise, type WithResponse } from './response-promise.js';
import type { RetryInfo } from './retry.js';
import { ATTEMPT_TIMEOUT_MS, MAX_RETRIES } from './retry.js';

export interface FoxbellOptions {
  /** A send token. Default: the `NOTIFY_TOKEN` environment variable. */
  token?: string | undefined;
  /**
   * The account's key, for `devices()` only: with it the list gives each device's freshness
   * (`last_seen_at`, `stale`), which a send token may not read. Never sent by any other call.
   */
  accountKey?: string | undefined;
  /** The service address, e.g. `https://foxbell.example.com`. Default: `NOTIFY_BASE_URL`. */
  baseUrl?: string | undefined;
  /** Retries after the first attempt, 0 to 3 (the spec's maximum, which is also the default). */
  maxRetries?: number | undefined;
  /** Per-attempt timeout covering headers and body. Default 30 000 ms. */
  timeoutMs?: number | undefined;
  /** Told about each retry before its wait, e.g. to show it. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
  /**
   * Hooks for tracing and metrics: each request's attempts, responses, retries and failure, with
   * its method, route template, status, request id and timing (see `RequestHooks`).
   */
  hooks?: RequestHooks | undefined;
  /** A fetch implementation to send with. Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
  /** The source of the backoff jitter, a number in [0, 1). Default `Math.random`; tests pin it. */
  random?: (() => number) | undefined;
  /**
   * What to log: `debug` (each attempt), `info` (each response, with its status and request id),
   * `warn` (each retry and its wait), `error`, or `off`. Default: `FOXBELL_LOG`, else `info` with a
   * `logger` and `off` without. No token and no notification text is ever logged.
   */
  logLevel?: LogLevel | undefined;
  /** Where log lines go: anything with debug, info, warn and error. Default `console`. */
  logger?: Logger | undefined;
}

export interface RequestOptions {
  /** Cancels the request and any wait between retries at once. */
  signal?: AbortSignal | undefined;
  /** An overall budget for the call in milliseconds: no retry starts that would end past it. */
  deadlineMs?: number | undefined;
  /** This call's per-attempt timeout (headers and body); default the client's. */
  timeoutMs?: number | undefined;
  /** This call's retries, 0 to 3 (the policy's most); default the client's. */
  maxRetries?: number | undefined;
  /**
   * Headers of your own (a trace id, say), sent unchanged on every attempt. The SDK's own
   * (`authorization`, `content-type`, `idempotency-key`, `user-agent`…) cannot be replaced.
   */
  headers?: Record<string, string> | undefined;
}

export interface SendOptions extends RequestOptions {
  /**
   * Makes retries of this send safe: the service notifies once per key (kept 24 hours).
   * Default: a new random key per call, reused by every retry of that call.
   */
  idempotencyKey?: string | undefined;
}

/**
 * The account's monthly send quota after this send, from the response's `X-RateLimit-*` headers.
 * Not the per-minute window: going past that is a `429 rate_limited`, which the client retries.
 */
export interface MonthlyQuota {
  /** The monthly send limit. */
  limit: number;
  /** Sends left this month. */
  remaining: number;
  /** When the month resets, epoch seconds. */
  reset: number;
}

export interface SendResult {
  /** The notification id; null only when a proxy dropped the 202's body. */
  id: string | null;
  status: 'accepted';
  request_id: string;
  /** The monthly quota (named for its headers, `X-RateLimit-*`); null when a proxy dropped them. */
  rate_limit: MonthlyQuota | null;
  /** The key the send was made with (given or generated). */
  idempotency_key: string;
}

/** `GET /v1/scenes`: what this SDK knows of its layout typed, the rest of the response kept as it came. */
/**
 * The catalog as the service sent it, every member kept: `scenes` holds the entries laid out as
 * this SDK knows them, typed; `unrecognized_scenes` (only when there are any) those laid out
 * otherwise, as they came, so a newer service's catalog is never read as smaller than it is.
 */
export type SceneCatalog = {
  scenes: CatalogScene[];
  unrecognized_scenes?: unknown[];
  [member: string]: unknown;
};

/** Takes any JSON object as it is. */
const anyObject = {
  safeParse: (value: unknown) =>
    isPlainObject(value) ? ({ success: true, data: value } as const) : ({ success: false } as const),
};

/** `waitFor` stops at the first status at least this far along (`STATUS_PROGRESSION`). */
export type WaitTarget = ProgressStatus;

export interface WaitOptions extends Omit<RequestOptions, 'deadlineMs' | 'timeoutMs'> {
  /**
   * Default `sent_to_push`. When it can no longer come (the notification was dropped, or every
   * device's push has ended and none reached its device) the wait ends at once with an
   * `UndeliverableError` carrying the record.
   */
  until?: WaitTarget | undefined;
  /** Default 60 000 ms; then a `TimeoutError` carrying the last record seen. */
  timeoutMs?: number | undefined;
  /** First pause between polls, doubled up to 5 s. Default 500 ms. */
  intervalMs?: number | undefined;
  /** Told about every record polled, the last one included, e.g. to show progress. */
  onUpdate?: ((record: StatusRecord) => void) | undefined;
}

export interface DevicesOptions extends RequestOptions {
  /**
   * With `accountKey`: the devices no longer active as well, after the active ones, each with its
   * `inactive_reason` (`inactiveInWords` says it in words). A send token lists active devices only.
   */
  includeInactive?: boolean | undefined;
}

/** A send as it would leave, for showing it: `prepareSend` builds it, `send` sends these bytes. */
export interface PreparedSend {
  method: 'POST';
  url: string;
  /** The headers the SDK sets, the token replaced by `[redacted]`. */
  headers: Record<string, string>;
  /** The JSON body, exactly as sent. */
  body: string;
}

const MAX_POLL_INTERVAL_MS = 5_000;
/** An account key of any Foxbell-compatible service: its prefix, `acct_`, 32 letters and digits. */
const ACCOUNT_KEY_PATTERN = /^[a-z][a-z0-9]*_acct_[A-Za-z0-9]{32}$/;
const SEND_PATH = 'v1/notifications';
/**
 * Headers fetch adds on its own (connection, accept, accept-language, sec-fetch-mode,
 * accept-encoding), counted against the 16 KB budget so the check errs on the safe side.
 */
const HTTP_STACK_HEADER_BYTES = 128;

function environment(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
    name
  ];
  return value === '' ? undefined : value;
}

function throwValidationError(error: FieldError): never {
  throw new ValidationError(error);
}

/** The Foxbell client: one method per endpoint a send token may call. */
export class Foxbell {
  readonly baseUrl: string;
  // A private field: the token never shows in util.inspect, JSON.stringify or an error.
  readonly #token: string;
  readonly #transport: Transport;
  /** The request line's and Host header's parts of the base URL, for sizing a request. */
  readonly #host: string;
  readonly #pathPrefix: string;
  readonly #accountKey: string | undefined;

  constructor(options: FoxbellOptions = {}) {
    const token = options.token ?? environment('NOTIFY_TOKEN');
    const baseUrl = options.baseUrl ?? environment('NOTIFY_BASE_URL');
    if (token === undefined) {
      throw new FoxbellError('invalid_config', 'No token: pass { token } or set NOTIFY_TOKEN');
    }
    // Checked without echoing it (fetch's own error for a bad header value would quote it): a
    // typo or a pasted account key fails here, not as a 401 on the first send.
    if (!ANY_SEND_TOKEN_PATTERN.test(token)) {
      throw new FoxbellError(
        'invalid_config',
        'The token is not a send token: a send token is its service prefix, send_, then 32 letters and digits (fox_send_…)',
      );
    }
    if (baseUrl === undefined) {
      throw new FoxbellError('invalid_config', 'No service address: pass { baseUrl } or set NOTIFY_BASE_URL');
    }
    const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
    // fetch rejects such a URL, quoting it whole, password included: rejected here, not echoed.
    if (url?.username || url?.password) {
      throw new FoxbellError('invalid_config', 'The base URL must not hold a user name or password');
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) {
      throw new FoxbellError('invalid_config', `The base URL must be an http(s) address: ${baseUrl}`);
    }
    this.baseUrl = url.href.replace(/\/+$/, '');
    this.#host = url.host;
    this.#pathPrefix = `${url.pathname.replace(/\/+$/, '')}/`;
    this.#token = token;
    if (options.accountKey !== undefined && !ACCOUNT_KEY_PATTERN.test(options.accountKey)) {
      throw new FoxbellError('invalid_config', 'The account key is not one (fox_acct_…)');
    }
    this.#accountKey = options.accountKey;
    const maxRetries = checkRetries(options.maxRetries ?? MAX_RETRIES);
    const timeoutMs = checkTimeout(options.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
    const fromEnv = options.logLevel === undefined ? environment('FOXBELL_LOG') : undefined;
    const log = logOf(
      options.logLevel ?? fromEnv,
      options.logger,
      fromEnv === undefined ? 'logLevel' : 'FOXBELL_LOG',
    );
    this.#transport = newTransport(this.baseUrl, {
      fetch: options.fetch,
      maxRetries,
      timeoutMs,
      random: options.random ?? Math.random,
      onRetry: options.onRetry,
      hooks: options.hooks,
      log,
      // A library prints nothing unasked, but for a long wait: the caller would see a hang.
      announceLongWait:
        options.logLevel === undefined && fromEnv === undefined && options.logger === undefined
          ? (message) => console.warn(message)
          : undefined,
    });
  }

  /** Sends a notification. Resolves once the service has stored and queued it (202). */
  send(fields: SendFields, options: SendOptions = {}): FoxbellPromise<SendResult> {
    return this.#call(options, async (transport) => {
      const { headers, body, idempotencyKey } = this.#sendRequest(fields, options);
      const response = await send(transport, {
        method: 'POST',
        path: SEND_PATH,
        headers,
        body,
        signal: options.signal,
        deadline: deadlineOf(options),
      });
      const parsed = sendResponseSchema.safeParse(parseJson(response.text));
      const data: SendResult = {
        id: parsed.success ? parsed.data.id : null,
        status: 'accepted',
        request_id:
          (parsed.success ? parsed.data.request_id : undefined) ?? response.headers.get('x-request-id') ?? '',
        rate_limit: rateLimitOf(response.headers),
        idempotency_key: idempotencyKey,
      };
      return { data, response };
    });
  }

  /**
   * Checks a send as `send` does and returns the request it would make, without sending it: for
   * a dry run. The token is redacted; without `idempotencyKey` the key shown is a fresh one.
   */
  prepareSend(
    fields: SendFields,
    options: Pick<SendOptions, 'idempotencyKey' | 'headers'> = {},
  ): PreparedSend {
    const { headers, body } = this.#sendRequest(fields, options);
    return {
      method: 'POST',
      url: `${this.baseUrl}/${SEND_PATH}`,
      headers: { ...headers, authorization: 'Bearer [redacted]' },
      body: new TextDecoder().decode(body),
    };
  }

  /** The checked headers and body of a send, rejected with a ValidationError as the server would. */
  #sendRequest(
    fields: SendFields,
    options: Pick<SendOptions, 'idempotencyKey' | 'headers'>,
  ): { headers: Record<string, string>; body: Uint8Array<ArrayBuffer>; idempotencyKey: string } {
    const input = checkedFields(fields);
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    if (!IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      throwValidationError({
        code: 'invalid_field',
        field: 'Idempotency-Key',
        message:
          'Idempotency-Key must be 1 to 255 printable ASCII characters, not starting or ending with a space',
      });
    }
    const body = new TextEncoder().encode(JSON.stringify(input));
    const headers = {
      ...this.#headers(options),
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    };
    this.#checkSize('POST', SEND_PATH, headers, body.byteLength);
    return { headers, body, idempotencyKey };
  }

  /** The status record of a notification this token sent. */
  status(id: string, options: RequestOptions = {}): FoxbellPromise<StatusRecord> {
    return this.#call(options, (transport) =>
      this.#get(transport, `v1/notifications/${encodeURIComponent(id)}/status`, statusRecordSchema, options),
    );
  }

  /**
   * Polls the status with growing pauses until it is at least `until` (default `sent_to_push`),
   * and resolves with that record (`withResponse()`: the last poll's response). Rejects at once with
   * an `UndeliverableError` when `until` can no longer come: the notification was dropped, or no
   * device was reached and none still may be (`willNotArrive`). That holds for `opened` and
   * `cleared` too: a person opens what reached a device (the app's inbox may still show it later,
   * which `status` would then tell).
   */
  waitFor(id: string, options: WaitOptions = {}): FoxbellPromise<StatusRecord> {
    // Each poll is a status call with the wait's settings; `timeoutMs` here is the whole wait's.
    return this.#call({}, async () => {
      const until = options.until ?? 'sent_to_push';
      const deadline = Date.now() + (options.timeoutMs ?? 60_000);
      let interval = options.intervalMs ?? 500;
      for (;;) {
        const polled = await this.status(id, {
          signal: options.signal,
          deadlineMs: deadline - Date.now(),
          ...(options.headers ? { headers: options.headers } : {}),
          ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        }).withResponse();
        const record = polled.data;
        options.onUpdate?.(record);
        if (progressOf(record.status) >= progressOf(until)) return polled;
        if (willNotArrive(record)) {
          throw new UndeliverableError(`${record.id} will not arrive: ${whyNot(record)}`, { record });
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new TimeoutError(`Still ${record.status} after waiting for ${until}`, { record });
        }
        await sleep(Math.min(interval, left), options.signal);
        interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS);
      }
    });
  }

  /**
   * The scene catalog: each scene's versions with a JSON Schema of its parameters. The interface
   * leaves the catalog's layout open: any JSON object is taken and nothing of it is dropped (see
   * `SceneCatalog`). A `scenes` member that is not a list is left as it came.
   */
  scenes(options: RequestOptions = {}): FoxbellPromise<SceneCatalog> {
    return this.#call(options, async (transport) => {
      const { data: catalog, response } = await this.#get(transport, 'v1/scenes', anyObject, options);
      if (catalog.scenes !== undefined && !Array.isArray(catalog.scenes)) {
        return { data: catalog as SceneCatalog, response };
      }
      const listed: unknown[] = catalog.scenes ?? [];
      const known = (entry: unknown): entry is CatalogScene => catalogSceneSchema.safeParse(entry).success;
      const scenes = listed.filter(known);
      const unrecognized = listed.filter((entry) => !known(entry));
      return {
        data: {
          ...catalog,
          scenes,
          ...(unrecognized.length > 0 ? { unrecognized_scenes: unrecognized } : {}),
        },
        response,
      };
    });
  }

  /**
   * The person's active devices, for choosing a `target`. Needs the token's `device_names` scope.
   * With `accountKey` and `includeInactive`, the devices no longer active follow, each with its
   * `inactive_reason`.
   */
  devices(options: DevicesOptions = {}): FoxbellPromise<Device[]> {
    return this.#call(options, async (transport) => {
      const { data, response } = await this.#get(
        transport,
        'v1/devices',
        deviceListSchema,
        options,
        this.#accountKey,
      );
      // An account key lists the inactive devices too: kept only when asked for, after the active.
      const active = data.devices.filter((device) => device.active !== false);
      const inactive = options.includeInactive
        ? data.devices.filter((device) => device.active === false)
        : [];
      return { data: [...active, ...inactive], response };
    });
  }

  /**
   * A percent-encoded URL that sends these fields when fetched (`GET /v1/send/<TOKEN>`), for
   * tools that cannot set headers. It holds the token: treat it as a secret.
   */
  sendUrl(fields: SendFields): string {
    const input = checkedFields(fields);
    if (!PATH_TOKEN_PATTERN.test(this.#token)) {
      throw new FoxbellError('invalid_config', 'This token cannot stand in a URL path');
    }
    const query: string[] = [];
    for (const [name, value] of Object.entries(input)) {
      if ((IGNORED_BODY_FIELDS as readonly string[]).includes(name)) {
        throwValidationError({
          code: 'invalid_field',
          field: name,
          message: `${name} is not a send field in a URL`,
        });
      }
      if (name !== 'scene_params') {
        query.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
        continue;
      }
      for (const [param, paramValue] of Object.entries(value as Record<string, unknown>)) {
        if (isPlainObject(paramValue) || Array.isArray(paramValue)) {
          throwValidationError({
            code: 'invalid_scene_param',
            field: `scene_params.${param}`,
            message: `scene_params.${param} cannot be written in a URL (it is not a single value)`,
          });
        }
        query.push(`${encodeURIComponent(`param.${param}`)}=${encodeURIComponent(String(paramValue))}`);
      }
    }
    const path = `v1/send/${this.#token}?${query.join('&')}`;
    this.#checkSize('GET', path, {}, 0);
    return `${this.baseUrl}/${path}`;
  }

  /**
   * Runs one method's requests with this call's settings over the client's (timeout, retries),
   * and makes the promise that gives its value or, with `withResponse()`, the response too.
   */
  #call<T>(
    options: RequestOptions,
    run: (transport: Transport) => Promise<{ data: T; response: HttpResponse } | WithResponse<T>>,
  ): FoxbellPromise<T> {
    const result = (async (): Promise<WithResponse<T>> => {
      const transport = this.#transportFor(options);
      const done = await run(transport);
      if (!('response' in done)) return done;
      const { status, headers } = done.response;
      return { data: done.data, requestId: headers.get('x-request-id') ?? undefined, status, headers };
    })();
    return new FoxbellPromise(result);
  }

  #transportFor(options: RequestOptions): Transport {
    const { maxRetries, timeoutMs } = options;
    if (maxRetries === undefined && timeoutMs === undefined) return this.#transport;
    if (maxRetries !== undefined) checkRetries(maxRetries);
    if (timeoutMs !== undefined) checkTimeout(timeoutMs);
    return {
      ...this.#transport,
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
  }

  async #get<T>(
    transport: Transport,
    path: string,
    schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
    options: RequestOptions,
    /** Sent instead of the token when given (the account key, for `devices`). */
    credential?: string | undefined,
  ): Promise<{ data: T; response: HttpResponse }> {
    const response = await send(transport, {
      method: 'GET',
      path,
      headers: {
        ...this.#headers(options),
        ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      },
      signal: options.signal,
      deadline: deadlineOf(options),
    });
    const parsed = schema.safeParse(parseJson(response.text));
    if (!parsed.success) {
      throw new FoxbellError(
        'invalid_response',
        `The response to GET /${path.split('?')[0]} is not of the expected shape`,
      );
    }
    return { data: parsed.data, response };
  }

  /** The headers every request carries, after the call's own (which may not replace the SDK's). */
  #headers(options: Pick<RequestOptions, 'headers'> = {}): Record<string, string> {
    const own: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      const lower = name.toLowerCase();
      if (RESERVED_HEADERS.includes(lower)) {
        throw new FoxbellError(
          'invalid_config',
          `The ${name} header is the SDK's to set; pass it as an option`,
        );
      }
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || !/^[\t\x20-\x7e]*$/.test(value)) {
        throw new FoxbellError('invalid_config', `The ${lower} header is not a valid HTTP header`);
      }
      own[lower] = value;
    }
    return { ...own, authorization: `Bearer ${this.#token}`, 'user-agent': `foxbell-sdk/${SDK_VERSION}` };
  }

  /** The spec's 16 KB limit covers the request line, headers and body as sent. */
  #checkSize(method: string, path: string, headers: Record<string, string>, bodyBytes: number): void {
    // `path` is ASCII already (the token's characters, percent-encoded values), as the URL sends it.
    let total =
      `${method} ${this.#pathPrefix}${path} HTTP/1.1\r\nhost: ${this.#host}\r\n\r\n`.length +
      (bodyBytes > 0 ? `content-length: ${bodyBytes}\r\n`.length : 0) +
      HTTP_STACK_HEADER_BYTES +
      bodyBytes;
    for (const [name, value] of Object.entries(headers)) total += name.length + utf8Length(value) + 4;
    if (total > LIMITS.requestBytes) {
      throwValidationError({
        code: 'payload_too_large',
        message: `The request would be about ${total} bytes; the limit is ${LIMITS.requestBytes}`,
        details: { limit: LIMITS.requestBytes, size: total },
      });
    }
  }

  /** The token is a secret: it stays out of `console.log(client)` and logs. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Foxbell { baseUrl: '${this.baseUrl}', token: '[redacted]'${this.#accountKey ? ", accountKey: '[redacted]'" : ''} }`;
  }

  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }
}

/** Why a notification will not arrive, briefly: its drop reason, or each device's state and reason. */
function whyNot(record: StatusRecord): string {
  if (record.status === 'dropped') return `it was dropped (${record.reason ?? 'no reason given'})`;
  const devices = record.destinations.map(
    ({ name, platform, state, reason, push_status }) =>
      `${name ?? platform} ${state}${reason === undefined ? '' : ` (${reason})`}${push_status == null ? '' : `, push status ${push_status}`}`,
  );
  return `no device was reached: ${devices.join('; ')}`;
}

/**
 * The fields the caller set (`undefined` means absent, as it does in JSON), rejected with a
 * ValidationError when the server would reject them.
 */
function checkedFields(fields: SendFields): Record<string, unknown> {
  if (!isPlainObject(fields))
    throwValidationError({ code: 'invalid_request', message: 'The fields must be an object' });
  const input = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const checked = checkSend(input, { unknownScenes: 'pass' });
  if (!checked.ok) throwValidationError(checked.error);
  return input;
}

/** Set by the SDK on every request: a call's `headers` cannot replace them. */
const RESERVED_HEADERS = [
  'authorization',
  'content-type',
  'content-length',
  'idempotency-key',
  'user-agent',
  'host',
  'transfer-encoding',
];

function checkRetries(maxRetries: number): number {
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES) {
    throw new FoxbellError('invalid_config', `maxRetries must be an integer from 0 to ${MAX_RETRIES}`);
  }
  return maxRetries;
}

function checkTimeout(timeoutMs: number): number {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new FoxbellError('invalid_config', 'timeoutMs must be a positive number of milliseconds');
  }
  return timeoutMs;
}

function deadlineOf(options: RequestOptions): number | undefined {
  return options.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs;
}

function rateLimitOf(headers: Headers): MonthlyQuota | null {
  const quota: Partial<MonthlyQuota> = {};
  for (const name of ['limit', 'remaining', 'reset'] as const) {
    const value = Number(headers.get(`x-ratelimit-${name}`) ?? Number.NaN);
    if (!Number.isSafeInteger(value)) return null;
    quota[name] = value;
  }
  // Every member was set above.
  return quota as MonthlyQuota;
}
