import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { JsonSchema } from '../route-doc.js';

/** Each response schema's JSON Schema for serialization, made once per process. */
const serializing = new WeakMap<z.ZodType, JsonSchema>();

/**
 * The JSON Schema Fastify serializes a response with (fast-json-stringify): the zod schema's
 * structure alone. Made with no metadata, so each schema is whole (no `$ref`), a nullable member is
 * `type: [..., "null"]` rather than an `anyOf` that would be checked with Ajv on each response, and
 * descriptions and patterns (for the document) stay out.
 *
 * `required` is left to the document as well: fast-json-stringify would answer a 500 for a member
 * missing (a row an older release wrote without it), and it writes required members first, out of
 * the schema's order. The OpenAPI test holds the served responses to the document, required
 * members included.
 */
export function serializationSchema(schema: z.ZodType): JsonSchema {
  let json = serializing.get(schema);
  if (json === undefined) {
    const { $schema: _, ...rest } = z.toJSONSchema(schema, {
      io: 'output',
      metadata: z.registry(),
      override: ({ jsonSchema }) => {
        delete jsonSchema.required;
      },
    });
    json = rest;
    serializing.set(schema, json);
  }
  return json;
}

/**
 * Each route's responses are serialized by the schemas its description names (`config.doc`):
 * faster than JSON.stringify, and a member a schema does not list is not sent, so nothing leaves by
 * accident. Added before the routes: Fastify tells a hook of the routes registered after it.
 */
export function registerResponseSchemas(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const responses = route.config?.doc?.responses;
    if (responses === undefined) return;
    const response = Object.fromEntries(
      Object.entries(responses).flatMap(([status, { schema }]) =>
        schema === undefined ? [] : [[status, serializationSchema(schema)]],
      ),
    );
    if (Object.keys(response).length > 0) route.schema = { ...route.schema, response };
  });
}
