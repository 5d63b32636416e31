import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_PATTERN } from '@foxbell/sdk/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, valueOrThrow } from '../../kernel/api-error.js';
import { parseJsonObject } from '../../send/json-body.js';
import { notificationFromRequest } from '../../send/prepare.js';
import type { SendSources } from '../../send/sources.js';
import { parseUrlEncoded } from '../../send/url-encoded.js';
import { decodeUtf8 } from '../../send/utf8.js';
import type { AppContext, Caller, RawBody } from '../context.js';

function textOf(bytes: Uint8Array, what: string): string {
  const text = decodeUtf8(bytes);
  if (text === undefined) throw new ApiError('invalid_request', `the ${what} is not valid UTF-8`);
  return text;
}

/** The raw query string of a request, without the `?`. */
function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  return at === -1 ? '' : request.url.slice(at + 1);
}

/**
 * A header value as the sender wrote it. Node reads header bytes as latin1; a client that sent
 * UTF-8 (curl does) meant the UTF-8 reading, so that is taken whenever the bytes are valid UTF-8.
 */
function headerText(value: string): string {
  return decodeUtf8(Buffer.from(value, 'latin1')) ?? value;
}

/**
 * The one value of a header that carries a field. Node would join repeated lines with ", ": the
 * same field given twice with different values is `conflicting_field` (spec, URL-token rule 3),
 * twice with one value is that value.
 */
function fieldHeader(request: FastifyRequest, name: string, field: string): string | undefined {
  // Most sends carry none of these: `headers` is already parsed, `headersDistinct` would be made.
  if (request.headers[name] === undefined) return undefined;
  const values = request.raw.headersDistinct[name];
  const first = values?.[0];
  if (first === undefined) return undefined;
  if (values?.some((value) => value !== first)) {
    throw new ApiError('conflicting_field', `${field} is given twice with different values`, { field });
  }
  return first;
}

/** The `Idempotency-Key` of a request: 1-255 printable ASCII characters, given once. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = fieldHeader(request, 'idempotency-key', 'Idempotency-Key');
  if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new ApiError('invalid_field', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      field: 'Idempotency-Key',
    });
  }
  return key;
}

/**
 * What makes two requests "the same request" for an idempotency key: method, query string, the
 * headers that carry fields, and the body, byte for byte.
 */
function fingerprintOf(request: FastifyRequest, body: RawBody | undefined): string {
  const hash = createHash('sha256');
  for (const part of [
    request.method,
    queryOf(request),
    request.headers['content-type'] ?? '',
    request.headers['x-title'] ?? '',
    request.headers['x-level'] ?? '',
  ]) {
    hash.update(String(part)).update('\0');
  }
  if (body) hash.update(body.bytes);
  return hash.digest('base64url');
}

function mapDefined<T, R>(value: T | undefined, map: (value: T) => R): R | undefined {
  return value === undefined ? undefined : map(value);
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The sources of a send to `/v1/send/<TOKEN>` (spec: URL-token endpoint, rules 1-9). */
function urlTokenSources(request: FastifyRequest, body: RawBody | undefined): SendSources {
  const sources: SendSources = {
    query: valueOrThrow(parseUrlEncoded(queryOf(request), 'query')),
    headers: {
      title: mapDefined(fieldHeader(request, 'x-title', 'title'), headerText),
      level: mapDefined(fieldHeader(request, 'x-level', 'level'), headerText),
    },
  };
  if (body?.type === 'json') sources.json = valueOrThrow(parseJsonObject(body.bytes));
  else if (body?.type === 'text') {
    const text = textOf(body.bytes, 'body');
    // An empty text body carries no message (spec-decisions 1): the send is then missing one.
    if (text !== '') sources.text = text;
  } else if (body?.type === 'form') {
    const text = textOf(body.bytes, 'body');
    if (!text.includes('=')) {
      if (text !== '') sources.text = text;
    } else sources.form = valueOrThrow(parseUrlEncoded(text, 'form'));
  }
  return sources;
}

export function sendRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/notifications', { config: { credentials: ['send'] } }, async (request, reply) => {
    const body = request.body as RawBody | undefined;
    if (body !== undefined && body.type !== 'json') {
      throw new ApiError('unsupported_media_type', 'this endpoint takes application/json only');
    }
    return accept(request, reply, ctx, body, () => {
      if (body === undefined) throw new ApiError('invalid_request', 'the body must be a JSON object');
      return { json: valueOrThrow(parseJsonObject(body.bytes)) };
    });
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/v1/send/:token',
    config: { credentials: ['send'], tokenInPath: true },
    handler: async (request, reply) => {
      // Fastify reads no body of a GET, and proxies may drop one: rather than ignore it, say so.
      if (request.method === 'GET' && hasBody(request)) {
        throw new ApiError(
          'invalid_request',
          'a GET carries no body here: POST it, or put the fields in the query',
          {
            headers: { connection: 'close' },
          },
        );
      }
      const body = request.body as RawBody | undefined;
      return accept(request, reply, ctx, body, () => urlTokenSources(request, body));
    },
  });
}

/** The one send path behind both endpoints: shed when too many are being stored, else store it. */
async function accept(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  body: RawBody | undefined,
  readSources: () => SendSources,
) {
  const caller = request.caller;
  if (caller?.kind !== 'send') throw new Error('send route reached without a send token');
  if (ctx.inFlight.sends >= ctx.limits.sendsInFlight) {
    ctx.metrics?.shed();
    throw new ApiError('service_unavailable', 'the server is busy; retry after Retry-After', {
      headers: { 'retry-after': '1' },
    });
  }
  ctx.inFlight.sends += 1;
  try {
    return await store(request, reply, ctx, caller, body, readSources);
  } finally {
    ctx.inFlight.sends -= 1;
  }
}

/** From the pause switch to the `202`. */
async function store(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  caller: Extract<Caller, { kind: 'send' }>,
  body: RawBody | undefined,
  readSources: () => SendSources,
) {
  const pause = await ctx.store.getPause();
  if (pause.paused) {
    throw new ApiError('service_unavailable', 'sends are paused; retry after Retry-After', {
      headers: { 'retry-after': String(pause.retryAfterSeconds) },
    });
  }
  const key = idempotencyKeyOf(request);
  const notification = notificationFromRequest(readSources(), caller.token);
  const outcome = await ctx.store.acceptSend({
    id: ctx.ids.id('ntf'),
    requestId: request.id,
    account: caller.account,
    token: caller.token,
    notification,
    idempotency: key === undefined ? undefined : { key, fingerprint: fingerprintOf(request, body) },
    now: ctx.clock.now(),
    limits: ctx.limits,
  });
  request.monthlyCount = outcome.monthlyCount;
  switch (outcome.kind) {
    case 'accepted':
    case 'replayed':
      if (outcome.kind === 'replayed') reply.header('idempotent-replayed', 'true');
      else ctx.onQueued();
      // The body returned, not `reply`: an async handler that returns the reply makes Fastify
      // treat it as a thenable and watch the response stream for each send.
      reply.code(202);
      return { id: outcome.id, status: 'accepted', request_id: request.id };
    case 'idempotency_conflict':
      throw new ApiError(
        'idempotency_conflict',
        'this Idempotency-Key was used for a different request; resend the original, or use a new key for a new notification',
        { field: 'Idempotency-Key' },
      );
    case 'rate_limited':
      throw new ApiError(
        'rate_limited',
        `too many sends from this ${outcome.scope} in the last minute; retry after Retry-After`,
        {
          details: {
            scope: outcome.scope,
            limit: outcome.scope === 'token' ? ctx.limits.perTokenPerMinute : ctx.limits.perAccountPerMinute,
          },
          headers: { 'retry-after': String(outcome.retryAfterSeconds) },
        },
      );
    case 'quota_exceeded':
      throw new ApiError(
        'quota_exceeded',
        'the monthly send quota is used up; it renews with the next UTC month',
        {
          details: { limit: ctx.limits.perAccountPerMonth },
        },
      );
  }
}
