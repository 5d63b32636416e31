import { issueError, textChecks } from '@foxbell/sdk/server-contract';
import type { FastifyRequest } from 'fastify';
import * as z from 'zod';
import { HttpError, valueOrThrow } from '../kernel/http-error.js';
import { parseJsonObject } from '../send/json-body.js';
import type { RawBody } from './context.js';

/** Text of `min` to `max` UTF-8 bytes: the interface's text rule, the contract's checks. */
export const textField = (min: number, max: number) =>
  z
    .string()
    .check(...textChecks(max, min))
    // For the interface document: a character is at least one byte, so maxLength is a safe bound.
    .meta({ minLength: min, maxLength: max, 'x-max-bytes': max });

/**
 * The JSON body of a management route, checked as strictly as a send: JSON only, one object,
 * no repeated members, and every field known, of its type and in range. A route whose fields are
 * all optional also takes no body at all.
 */
export function readBody<T extends z.ZodType>(request: FastifyRequest, schema: T): z.output<T> {
  const body = request.body as RawBody | undefined;
  let value: Record<string, unknown> = {};
  if (body !== undefined) {
    if (body.type !== 'json')
      throw new HttpError('unsupported_media_type', 'this route takes application/json');
    value = valueOrThrow(parseJsonObject(body.bytes));
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  if (!issue) throw new HttpError('invalid_request', 'the body is not valid');
  throw HttpError.fromField(
    issueError(issue, {
      input: value,
      under: '',
      code: 'invalid_field',
      unknown: 'is not a field of this request',
    }),
  );
}
