import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Transform } from 'node:stream';
import { LIMITS } from '@foxbell/sdk/contract';
import { MESSAGES } from '@foxbell/sdk/server-contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../../kernel/http-error.js';

export function tooLarge(bytes: number | undefined): HttpError {
  return new HttpError('payload_too_large', MESSAGES.tooLarge(LIMITS.requestBytes), {
    details: { limit: LIMITS.requestBytes, ...(bytes === undefined ? {} : { size: bytes }) },
  });
}

/**
 * Bytes of a connection already counted to its earlier requests. The socket's `bytesRead` is every
 * byte that came in (after TLS: the HTTP bytes), so a request's size is what came in since: its
 * request line, its headers with all their padding, its body with its chunk framing, chunk
 * extensions and trailers, as sent. (A client that pipelines, sending a request before the response
 * to the last one, has the next one's bytes that came in together counted to the first.)
 */
const counted = new WeakMap<Socket, number>();

/**
 * Bytes of the request line and headers as Node parsed them (`rawHeaders`, one character a byte):
 * without the whitespace around each value, so at most what came over the wire.
 */
function headBytesOf(request: IncomingMessage): number {
  let bytes = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`.length + 2;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) bytes += (raw[i]?.length ?? 0) + 2 + (raw[i + 1]?.length ?? 0) + 2;
  return bytes;
}

/** The bytes of this request that have come in so far. */
export function wireBytes(request: FastifyRequest): number {
  return request.socket.bytesRead - request.wireStart;
}

/**
 * The spec's 16 KB limit on the whole request, counted in the bytes that came over the wire. The
 * head is measured as soon as the request arrives, and a declared Content-Length that would go
 * over is rejected before a byte of the body is read. A body is counted as it comes, so a chunked
 * one whose framing runs past the limit (1-byte chunks with long extensions) is cut off there, not
 * read to its end; its trailers are counted at its end, by the body parsers.
 */
export function registerRequestSize(app: FastifyInstance): void {
  app.decorateRequest('wireStart', 0);
  // Hooks with nothing to wait for take Fastify's callback form here and in app.ts: an async
  // hook costs a promise and a turn of the microtask queue on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    const { socket } = request;
    request.wireStart = counted.get(socket) ?? 0;
    // What has come in is this request's; once it has been read whole (or dumped unread), so is
    // everything up to then.
    counted.set(socket, socket.bytesRead);
    request.raw.once('end', () => counted.set(socket, socket.bytesRead));
    // What came in may hold some of the body already, so a declared length is added to the head
    // as Node parsed it (a lower bound: padding is left out), and the body is counted as it comes.
    const declared = Number(request.headers['content-length'] ?? 0);
    const total = Math.max(
      wireBytes(request),
      headBytesOf(request.raw) + (Number.isFinite(declared) ? declared : 0),
    );
    done(total > LIMITS.requestBytes ? tooLarge(total) : undefined);
  });
  // A chunked body is counted as it comes in, framing and all, and cut off past the limit. One
  // with a Content-Length needs no stream between: its length was checked above, and the body
  // parsers count it with the head's padding once it is in, before it is used.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.headers['transfer-encoding'] === undefined) return done(null, payload);
    const counting = new Transform({
      transform(chunk, _encoding, next) {
        const total = wireBytes(request);
        next(total > LIMITS.requestBytes ? tooLarge(total) : null, chunk);
      },
    });
    // An error of the body's own (a reset) reaches the reader through the stream it reads.
    payload.on('error', (error) => counting.destroy(error));
    done(null, payload.pipe(counting));
  });
}
