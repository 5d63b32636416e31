import { createHash } from 'node:crypto';
import { type ErrorCode, IDEMPOTENCY_KEY_PATTERN } from '@foxbell/sdk/contract';
import { type Checked, MESSAGES } from '@foxbell/sdk/server-contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as z from 'zod';
import { HttpError } from '../../kernel/http-error.js';
import type { SendToken } from '../../model/tokens.js';
import { sendBody } from '../../send/field-schemas.js';
import { parseJsonObject } from '../../send/json-body.js';
import { notificationFromRequest, type PreparedNotification } from '../../send/prepare.js';
import type { SendSources } from '../../send/sources.js';
import { parseUrlEncoded } from '../../send/url-encoded.js';
import { decodeUtf8 } from '../../send/utf8.js';
import type { AppContext, Caller, RawBody, RoutesOptions } from '../context.js';
import { registerRateLimitHeaders } from '../hooks/rate-limit-headers.js';
import { registerSendMetrics } from '../hooks/send-metrics.js';
import { IDEMPOTENCY_KEY, pathId, type RouteDoc } from '../route-doc.js';
import { idOf } from '../schema-parts.js';

function bodyText(bytes: Uint8Array): Checked<string> {
  const text = decodeUtf8(bytes);
  return text === undefined
    ? { ok: false, error: { code: 'invalid_request', message: 'the body is not valid UTF-8' } }
    : { ok: true, value: text };
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
function fieldHeader(request: FastifyRequest, name: string, field: string): Checked<string | undefined> {
  // Most sends carry none of these: `headers` is already parsed, `headersDistinct` would be made.
  if (request.headers[name] === undefined) return { ok: true, value: undefined };
  const values = request.raw.headersDistinct[name];
  const first = values?.[0];
  if (values?.some((value) => value !== first)) {
    const message = `${field} is given twice with different values`;
    return { ok: false, error: { code: 'conflicting_field', field, message } };
  }
  return { ok: true, value: first };
}

/** The `Idempotency-Key` of a request: 1-255 printable ASCII characters, given once. */
function idempotencyKeyOf(request: FastifyRequest): Checked<string | undefined> {
  const key = fieldHeader(request, 'idempotency-key', 'Idempotency-Key');
  if (key.ok && key.value !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key.value)) {
    return {
      ok: false,
      error: { code: 'invalid_field', field: 'Idempotency-Key', message: MESSAGES.idempotencyKeyShape },
    };
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

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The sources of a send to `/v1/send/<TOKEN>` (spec: URL-token endpoint, rules 1-9). */
function urlTokenSources(request: FastifyRequest, body: RawBody | undefined): Checked<SendSources> {
  const query = parseUrlEncoded(queryOf(request), 'query');
  if (!query.ok) return query;
  const title = fieldHeader(request, 'x-title', 'title');
  if (!title.ok) return title;
  const level = fieldHeader(request, 'x-level', 'level');
  if (!level.ok) return level;
  const sources: SendSources = {
    query: query.value,
    headers: {
      title: title.value === undefined ? undefined : headerText(title.value),
      level: level.value === undefined ? undefined : headerText(level.value),
    },
  };
  if (body?.type === 'json') {
    const json = parseJsonObject(body.bytes);
    if (!json.ok) return json;
    sources.json = json.value;
  } else if (body?.type === 'text' || body?.type === 'form') {
    const text = bodyText(body.bytes);
    if (!text.ok) return text;
    // An empty body carries no message (spec-decisions 1): the send is then missing one. A form
    // body without `=` is the message as written.
    if (body.type === 'form' && text.value.includes('=')) {
      const form = parseUrlEncoded(text.value, 'form');
      if (!form.ok) return form;
      sources.form = form.value;
    } else if (text.value !== '') sources.text = text.value;
  }
  return { ok: true, value: sources };
}

const SEND_ERRORS: ErrorCode[] = [
  'invalid_request',
  'missing_field',
  'invalid_field',
  'conflicting_field',
  'invalid_scene',
  'invalid_scene_param',
  'forbidden',
  'scene_not_allowed',
  'idempotency_conflict',
  'payload_too_large',
  'unsupported_media_type',
  'urls_not_allowed',
  'quota_exceeded',
  'rate_limited',
  'service_unavailable',
];

const sendResponse = z
  .object({ id: idOf('ntf'), status: z.literal('accepted'), request_id: idOf('req') })
  .meta({ id: 'SendResponse' });

const SEND_RESPONSES: RouteDoc['responses'] = {
  202: {
    description: 'Stored durably and queued for delivery.',
    schema: sendResponse,
    headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Idempotent-Replayed'],
  },
};

/** `/v1/send/{token}` by GET or POST: the same but for POST's bodies. */
function urlTokenDoc(operationId: string, body?: RouteDoc['body']): RouteDoc {
  return {
    operationId,
    summary: 'Send with the token in the URL, from the query, a form, plain text, JSON and X-Title/X-Level',
    parameters: [
      pathId('token', 'A send token.'),
      { name: 'X-Title', in: 'header', schema: { type: 'string' }, description: 'title' },
      { name: 'X-Level', in: 'header', schema: { type: 'string' }, description: 'level' },
      { name: 'Idempotency-Key', in: 'header', schema: IDEMPOTENCY_KEY },
      {
        name: 'fields',
        in: 'query',
        style: 'form',
        explode: true,
        schema: { type: 'object', additionalProperties: { type: 'string' } },
        description: 'Send fields as name=value, and scene parameters as param.<name>=value.',
      },
    ],
    ...(body ? { body } : {}),
    responses: SEND_RESPONSES,
    errors: SEND_ERRORS,
  };
}

export async function sendRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  registerRateLimitHeaders(app, ctx);
  if (ctx.metrics) registerSendMetrics(app, ctx.metrics);
  app.post(
    '/v1/notifications',
    {
      config: {
        credentials: ['send'],
        doc: {
          operationId: 'sendNotification',
          summary: 'Send a notification',
          body: { schema: sendBody, required: true },
          parameters: [{ name: 'Idempotency-Key', in: 'header', schema: IDEMPOTENCY_KEY }],
          responses: SEND_RESPONSES,
          errors: SEND_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as RawBody | undefined;
      if (body !== undefined && body.type !== 'json') {
        throw new HttpError('unsupported_media_type', MESSAGES.jsonOnly);
      }
      return accept(request, reply, ctx, body, () => {
        if (body === undefined) throw new HttpError('invalid_request', MESSAGES.notAnObject);
        const json = parseJsonObject(body.bytes);
        return json.ok ? { ok: true, value: { json: json.value } } : json;
      });
    },
  );

  const withTokenInPath = async (request: FastifyRequest, reply: FastifyReply) => {
    // Fastify reads no body of a GET, and proxies may drop one: rather than ignore it, say so.
    if (request.method === 'GET' && hasBody(request)) {
      throw new HttpError(
        'invalid_request',
        'a GET carries no body here: POST it, or put the fields in the query',
        {
          headers: { connection: 'close' },
        },
      );
    }
    const body = request.body as RawBody | undefined;
    return accept(request, reply, ctx, body, () => urlTokenSources(request, body));
  };
  const config = { credentials: ['send'], tokenInPath: true } as const;
  // No HEAD beside this GET, which sends: link previewers probe URLs with HEAD.
  app.get(
    '/v1/send/:token',
    { exposeHeadRoute: false, config: { ...config, doc: urlTokenDoc('sendWithUrlToken') } },
    withTokenInPath,
  );
  app.post(
    '/v1/send/:token',
    {
      config: {
        ...config,
        doc: urlTokenDoc('sendWithUrlTokenAndBody', {
          schema: sendBody,
          contentTypes: {
            'application/x-www-form-urlencoded': { type: 'object' },
            'text/plain': { type: 'string', description: 'The message, exactly.' },
          },
        }),
      },
    },
    withTokenInPath,
  );
}

/** The one send path behind both endpoints: shed when too many are being stored, else store it. */
async function accept(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  body: RawBody | undefined,
  readSources: () => Checked<SendSources>,
) {
  const caller = request.caller;
  if (caller?.kind !== 'send') throw new Error('send route reached without a send token');
  if (ctx.inFlight.sends >= ctx.limits.sendsInFlight) {
    ctx.metrics?.shed();
    throw new HttpError('service_unavailable', 'the server is busy; retry after Retry-After', {
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

/** The send's Idempotency-Key and notification, or the first error among them. */
function preparedSend(
  request: FastifyRequest,
  readSources: () => Checked<SendSources>,
  token: SendToken,
): Checked<{ key: string | undefined; notification: PreparedNotification }> {
  const key = idempotencyKeyOf(request);
  if (!key.ok) return key;
  const sources = readSources();
  if (!sources.ok) return sources;
  const notification = notificationFromRequest(sources.value, token);
  if (!notification.ok) return notification;
  return { ok: true, value: { key: key.value, notification: notification.value } };
}

/** From the pause switch to the `202`. */
async function store(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  caller: Extract<Caller, { kind: 'send' }>,
  body: RawBody | undefined,
  readSources: () => Checked<SendSources>,
) {
  const pause = await ctx.store.getPause();
  if (pause.paused) {
    throw new HttpError('service_unavailable', MESSAGES.paused, {
      headers: { 'retry-after': String(pause.retryAfterSeconds) },
    });
  }
  const prepared = preparedSend(request, readSources, caller.token);
  // The one place a send's error becomes a response.
  if (!prepared.ok) throw HttpError.fromField(prepared.error);
  const { key, notification } = prepared.value;
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
      throw new HttpError('idempotency_conflict', MESSAGES.idempotencyConflict, { field: 'Idempotency-Key' });
    case 'rate_limited':
      throw new HttpError('rate_limited', MESSAGES.rateLimited(outcome.scope), {
        details: {
          scope: outcome.scope,
          limit: outcome.limit,
        },
        headers: { 'retry-after': String(outcome.retryAfterSeconds) },
      });
    case 'quota_exceeded':
      throw new HttpError('quota_exceeded', MESSAGES.quotaExceeded, {
        details: { limit: outcome.limit },
      });
  }
}
