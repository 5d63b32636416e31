import { type ErrorCode, IDEMPOTENCY_KEY_PATTERN, LIMITS } from '@foxbell/sdk/contract';
import type * as z from 'zod';

/**
 * What a route says of itself, beside its method, path and credentials: its operation id, summary,
 * body, parameters, responses and the error codes it gives. Each route carries it in its own
 * registration (`config.doc`). A response's schema is a zod schema, named by its `id` (zod's
 * `.meta({ id })`), and it is used twice: Fastify serializes the response with it
 * (hooks/response-schemas.ts), and the OpenAPI document lists it (openapi/document.ts). So a
 * response's shape is written once, and the document cannot miss a route or a member.
 */
export interface RouteDoc {
  /** Unique across the interface, in lower camel case: what a generated client names the call. */
  operationId: string;
  summary: string;
  /** The body's schema as a request gives it (its defaults need not be sent), and other media types. */
  body?: { schema: z.ZodType; required?: boolean; contentTypes?: Record<string, JsonSchema> };
  parameters?: JsonSchema[];
  responses: Record<number, RouteResponse>;
  /** The error codes this route responds, beyond 401s and 500 (every credentialed route has those). */
  errors?: ErrorCode[];
}

export interface RouteResponse {
  description: string;
  /** The body's schema; a member it does not list is not sent. None: a response without a body. */
  schema?: z.ZodType;
  /** Headers beside X-Request-Id, by their names in the document's components. */
  headers?: string[];
}

export type JsonSchema = { [key: string]: unknown };

/** A path parameter, by name. */
export const pathId = (name: string, description: string): JsonSchema => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description,
});

export const BODY_ERRORS: ErrorCode[] = [
  'invalid_request',
  'missing_field',
  'invalid_field',
  'conflicting_field',
];

/** What every write of an account's own things may respond, beyond its own codes. */
export const MANAGEMENT_WRITE: ErrorCode[] = [
  ...BODY_ERRORS,
  'forbidden',
  'unsupported_media_type',
  'rate_limited',
];

/** The `Idempotency-Key` header's schema. */
export const IDEMPOTENCY_KEY: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.idempotencyKeyChars,
  pattern: IDEMPOTENCY_KEY_PATTERN.source,
};
