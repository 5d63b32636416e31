import { LIMITS } from '@foxbell/sdk/contract';
import type { FastifyInstance } from 'fastify';
import type { RawBody } from '../context.js';
import { tooLarge, wireBytes } from './request-size.js';

/**
 * The three body types the interface accepts, each kept as its raw bytes: an idempotent retry is
 * judged byte for byte, a form body without `=` is the message exactly as sent, and a repeated
 * JSON member or form field must still be visible. (That is why @fastify/formbody is not used:
 * it hands over parsed fields, with the bytes and the repeats gone.) Any other type is Fastify's
 * `415`, mapped to `unsupported_media_type` by the error handler.
 */
const TYPES: readonly [string, RawBody['type']][] = [
  ['application/json', 'json'],
  ['application/x-www-form-urlencoded', 'form'],
  ['text/plain', 'text'],
];

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  for (const [contentType, type] of TYPES) {
    app.addContentTypeParser(
      contentType,
      // Fastify stops reading at bodyLimit; the exact budget counts the whole request as it came
      // in (see request-size), trailers too, which have all arrived once the body has.
      { parseAs: 'buffer', bodyLimit: LIMITS.requestBytes },
      (request, bytes, done) => {
        const total = wireBytes(request);
        if (total > LIMITS.requestBytes) done(tooLarge(total), undefined);
        else done(null, { type, bytes: bytes as Buffer } satisfies RawBody);
      },
    );
  }
}
