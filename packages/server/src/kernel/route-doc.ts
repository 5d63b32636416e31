import { type ErrorCode, IDEMPOTENCY_KEY_PATTERN, LIMITS } from '@foxbell/sdk/contract';

/**
 * What a route says of itself, beside its method, path and credentials: its summary, body,
 * parameters, answers and the error codes it gives. Each route carries it in its own registration
 * (`config.doc`), and the OpenAPI document is made from the routes the app registered, so a route
 * is written once and the document cannot miss one. Schemas are named, from openapi/schemas.ts.
 */
export interface RouteDoc {
  summary: string;
  body?: { schema: string; required?: boolean; contentTypes?: Record<string, JsonSchema> };
  parameters?: JsonSchema[];
  answers: Record<number, { description: string; schema?: string; headers?: string[] }>;
  /** The error codes this route answers, beyond 401s and 500 (every credentialed route has those). */
  errors?: ErrorCode[];
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

/** What every write of an account's own things may answer, beyond its own codes. */
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
