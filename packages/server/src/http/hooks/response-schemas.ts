import fastJsonStringify from 'fast-json-stringify';
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
 * `required` is left to the document as well: fast-json-stringify throws on a required member that
 * is missing (a 500 for a row an older release wrote without it), and writes required members
 * first, out of the schema's order. The OpenAPI test holds the served responses to the document, required
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
 * Serializers by their schema's JSON text, for the process: each app (a test makes hundreds) and
 * each GET's HEAD twin would otherwise compile every one again (an app started in 56 ms of CPU
 * without this, 45 with it, as before response schemas).
 */
const serializers = new Map<string, (data: unknown) => string>();

/**
 * Each route's responses are serialized by the schemas its description names (`config.doc`): a
 * member a schema does not list is not sent, so nothing leaves by accident. Added before the
 * routes: Fastify tells a hook of the routes registered after it.
 */
export function registerResponseSchemas(app: FastifyInstance): void {
  // What Fastify's own compiler does (fast-json-stringify, without shared schemas), kept.
  app.setSerializerCompiler(({ schema }) => {
    const key = JSON.stringify(schema);
    let serialize = serializers.get(key);
    if (serialize === undefined) {
      serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]);
      serializers.set(key, serialize);
    }
    return serialize;
  });
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
