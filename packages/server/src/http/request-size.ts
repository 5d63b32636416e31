import type { IncomingMessage } from 'node:http';
import { LIMITS } from '@foxbell/sdk/contract';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

/**
 * Bytes of the request line and headers as they came over the wire. Node keeps the raw header
 * lines in `rawHeaders` (decoded as latin1, one character per byte); only whitespace around a
 * value is lost, which cannot push a request over the limit by more than a few bytes.
 */
export function headBytesOf(request: IncomingMessage): number {
  let bytes = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`.length + 2;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) bytes += (raw[i]?.length ?? 0) + 2 + (raw[i + 1]?.length ?? 0) + 2;
  return bytes;
}

export function tooLarge(bytes: number | undefined): ApiError {
  return new ApiError(
    'payload_too_large',
    `the request is over ${LIMITS.requestBytes} bytes (path, query string, headers and body as sent)`,
    { details: { limit: LIMITS.requestBytes, ...(bytes === undefined ? {} : { size: bytes }) } },
  );
}

/**
 * The spec's 16 KB limit on the whole request. The head is measured as soon as the request
 * arrives; a declared Content-Length that would go over is refused before a byte of the body is
 * read, and a chunked body is cut off by the body parsers at the bytes left (see body-parsers).
 */
export function registerRequestSize(app: FastifyInstance): void {
  app.decorateRequest('headBytes', 0);
  // Hooks with nothing to wait for take Fastify's callback form here and in app.ts: an async
  // hook costs a promise and a turn of the microtask queue on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    request.headBytes = headBytesOf(request.raw);
    const declared = Number(request.headers['content-length'] ?? 0);
    const total = request.headBytes + (Number.isFinite(declared) ? declared : 0);
    done(total > LIMITS.requestBytes ? tooLarge(total) : undefined);
  });
}
