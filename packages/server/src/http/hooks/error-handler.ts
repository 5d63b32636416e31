import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CODES, type ErrorCode } from '@foxbell/sdk/contract';
import { MESSAGES } from '@foxbell/sdk/server-contract';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as z from 'zod';
import { errorBody, HttpError } from '../../kernel/http-error.js';
import type { IdSource } from '../../kernel/ids.js';
import { AccountEndedError } from '../../model/accounts.js';
import { isStorageUnavailable } from '../../store/storage-errors.js';
import { idOf } from '../schema-parts.js';
import { endedAccountError } from './auth.js';
import { tooLarge } from './request-size.js';

const count = z.int().min(0);

/**
 * The spec's error body, for the document. Error responses are written as they are (with
 * JSON.stringify, not by this schema), so that every member of `details` arrives, those named here
 * and any other.
 */
export const errorSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_CODES) as ErrorCode[]).meta({ description: 'Stable: match on it.' }),
      message: z.string().meta({ description: 'For a person; may change.' }),
      field: z
        .string()
        .optional()
        .meta({ description: 'The field, header or parameter at fault, where one is.' }),
      details: z
        .looseObject({
          limit: z.union([z.int(), z.string()]).optional().meta({
            description:
              'What was exceeded: a number (the request size, a rate, the monthly quota), or what is limited (devices, tokens, link_approvals).',
          }),
          max: count.optional().meta({ description: 'How many the limit allows.' }),
          scope: z.string().optional().meta({ description: 'What a rate limit counts (token, account, …).' }),
          size: count.optional().meta({ description: "The request's size in bytes, when known." }),
          generation: z.int().optional().meta({ description: "The account key's current generation." }),
          canonical_account_id: idOf('acct')
            .optional()
            .meta({ description: 'The account this one was merged into.' }),
          reason: z.string().optional().meta({ description: 'Why source.device_key was rejected.' }),
          token_count: count.optional(),
          other_devices: count.optional(),
          allowed: z.array(z.string()).optional().meta({ description: "The token's scenes." }),
          sources: z
            .array(z.string())
            .optional()
            .meta({ description: 'The two places a field came from with different values.' }),
          fields: z
            .array(z.string())
            .optional()
            .meta({ description: 'The names message was given under with different values.' }),
        })
        .optional()
        .meta({ description: 'More, for some codes; other members may come.' }),
    }),
    request_id: idOf('req'),
  })
  .meta({ id: 'Error' });

/** Fastify's own errors, in the interface's words. */
function fromFastify(error: FastifyError): HttpError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError(
        'unsupported_media_type',
        'the content type is not accepted here (JSON; the URL-token endpoint also takes form and plain text)',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(undefined);
    default:
      return error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? new HttpError('invalid_request', 'the request could not be read')
        : undefined;
  }
}

/**
 * Headers of every response. Every response is about one caller's data or credentials: nothing may
 * cache it, and no browser may guess it is something other than what it says.
 */
export function setBaseHeaders(reply: FastifyReply, request: FastifyRequest): void {
  reply.headers({
    'x-request-id': request.id,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
}

export function sendApiError(reply: FastifyReply, request: FastifyRequest, error: HttpError): FastifyReply {
  // Also for errors made before the onRequest hooks ran (a path that does not parse).
  setBaseHeaders(reply, request);
  request.errorCode = error.code;
  reply.headers(error.headers);
  // The rest of an oversized body is not wanted: close the connection rather than read it.
  if (error.status === 413) reply.header('connection', 'close');
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(error.code, error.message, request.id, error.field, error.details));
}

/**
 * Every error leaves in the spec's error body with `request_id` equal to `X-Request-Id`. A fault
 * of ours is logged with its stack and responded with `500 internal_error` with nothing of the fault in
 * the body.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.decorateRequest('errorCode', undefined);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known =
      error instanceof HttpError
        ? error
        : error instanceof AccountEndedError
          ? accountEndedMeanwhile(error, request)
          : fromFastify(error);
    if (known) return sendApiError(reply, request, known);
    request.log.error({ err: error }, 'request failed');
    if (isStorageUnavailable(error)) {
      return sendApiError(
        reply,
        request,
        new HttpError('service_unavailable', 'the database cannot take writes right now; retry later', {
          headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) },
        }),
      );
    }
    return sendApiError(
      reply,
      request,
      new HttpError('internal_error', 'the server failed; retry with backoff'),
    );
  });
  // The path is not echoed: it may hold a token in a spelling no route knows.
  app.setNotFoundHandler((request, reply) =>
    sendApiError(reply, request, new HttpError('not_found', MESSAGES.noRoute(request.method))),
  );
}

const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * The caller's account was merged or deleted between its authentication and its write, which
 * wrote nothing. An account key gets what it would get now (`account_merged`, `account_deleted`);
 * a device key or send token, which follow a merge, is told to retry at once: the retry is
 * authenticated against the account as it is now.
 */
function accountEndedMeanwhile(error: AccountEndedError, request: FastifyRequest): HttpError {
  const httpError = request.caller?.kind === 'account' ? endedAccountError(error.account) : undefined;
  return (
    httpError ??
    new HttpError('service_unavailable', 'the account changed while this request waited; retry', {
      headers: { 'retry-after': '1' },
    })
  );
}

/** How long a rejected client has to read its response and close before its socket is destroyed. */
const ERROR_LINGER_MS = 2_000;

/**
 * Node's HTTP parser's errors (llhttp's `HPE_*`) and its request timeout: the only client errors
 * that come with an HTTP connection to respond on.
 */
function isHttpParserError(error: NodeJS.ErrnoException): boolean {
  return error.code?.startsWith('HPE_') === true || error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
}

/**
 * Requests Node's HTTP parser rejects never reach Fastify. Headers over Node's limit (16 KB, the
 * same as the interface's) are the spec's `413`, never a bare `431`; anything else malformed is
 * `400 invalid_request`. Both in the spec's error body.
 *
 * Every other client error is the connection's, not a request's: a TLS handshake that failed,
 * timed out or was abandoned (the HTTPS server reports those here too), or a reset. There is no
 * HTTP to respond in, and a response written into a socket whose handshake never completed keeps it
 * open for good: the socket is destroyed.
 */
export function clientErrorResponder(ids: IdSource) {
  return (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!isHttpParserError(error) || !socket.writable) return socket.destroy();
    const requestId = ids.id('req');
    // The spec has no timeout code: a request too slow to arrive is one the server could not read.
    const httpError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? tooLarge(undefined)
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new HttpError('invalid_request', 'the request did not arrive in time; the connection is closed')
          : new HttpError('invalid_request', 'the request is not valid HTTP');
    const { status } = httpError;
    const body = JSON.stringify(
      errorBody(httpError.code, httpError.message, requestId, httpError.field, httpError.details),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
    // The response is sent and our side closed; a client that neither reads it nor closes its own
    // side would hold the descriptor. (Not destroyed at once: unread bytes of the rejected request
    // would make that a reset, which can discard the response before the client reads it.)
    const linger = setTimeout(() => socket.destroy(), ERROR_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  };
}
