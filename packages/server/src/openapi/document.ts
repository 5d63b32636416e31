import { ERROR_CODES, type ErrorCode } from '@foxbell/sdk/contract';
import * as z from 'zod';
import type { CredentialKind } from '../http/context.js';
import { errorSchema } from '../http/hooks/error-handler.js';
import type { JsonSchema, RouteDoc } from '../http/route-doc.js';

/** A route as the app registered it: its method and path, its credentials and what it says of itself. */
export interface DocumentedRoute {
  method: string;
  /** In OpenAPI's form: `/v1/devices/{id}`. */
  path: string;
  /** Who may call it; none for the probes, this document and a token in the path. */
  credentials: readonly CredentialKind[];
  doc: RouteDoc;
}

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': {
    description: 'The request id, equal to request_id in a body.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: "The account's monthly sends.", schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Sends left this UTC month.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'When the month resets, in epoch seconds.',
    schema: { type: 'integer' },
  },
  'Idempotent-Replayed': {
    description: 'true on the replay of an earlier request.',
    schema: { const: 'true' },
  },
  'Retry-After': { description: 'Seconds to wait before a retry.', schema: { type: 'integer' } },
};

/** The JSON Schemas of a document: each schema the routes name, and the named ones among them. */
interface Converted {
  /** Each schema as an operation gives it: a `$ref` to a named one, or the schema itself. */
  each: Map<z.ZodType, JsonSchema>;
  /** The schemas with an `id` (zod's `.meta({ id })`), by it: the document's components. */
  named: Record<string, JsonSchema>;
}

/**
 * Converts schemas together, so that a schema named once is one component wherever it is used
 * (zod rejects two different schemas under one name). Requests are read as a client gives them
 * (`io: input`: a member with a default is optional), responses as the server sends them.
 */
function convert(schemas: readonly z.ZodType[], io: 'input' | 'output'): Converted {
  const together = z.object(Object.fromEntries(schemas.map((schema, i) => [String(i), schema])));
  const converted = z.toJSONSchema(together, {
    io,
    // A send field the contract checks with code of its own says its type in its metadata.
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      // zod bounds every integer by the safe range; the interface's are far inside it, and the
      // bounds would be noise in the document and in what generators make of it.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as JsonSchema;
  const properties = converted.properties as Record<string, JsonSchema>;
  return {
    each: new Map(schemas.map((schema, i) => [schema, properties[String(i)] as JsonSchema])),
    named: (converted.$defs ?? {}) as Record<string, JsonSchema>,
  };
}

/** zod's references point into `$defs`; the document keeps named schemas in its components. */
function asComponentRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(asComponentRefs) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      key,
      key === '$ref' && typeof member === 'string'
        ? member.replace(/^#\/\$defs\//, '#/components/schemas/')
        : asComponentRefs(member),
    ]),
  ) as T;
}

/** The JSON Schema of every body and response the routes name, and the named ones among them. */
function schemasOf(routes: readonly DocumentedRoute[]) {
  const bodies = new Set<z.ZodType>();
  const responses = new Set<z.ZodType>([errorSchema]);
  for (const { doc } of routes) {
    if (doc.body) bodies.add(doc.body.schema);
    for (const { schema } of Object.values(doc.responses)) if (schema) responses.add(schema);
  }
  const requests = convert([...bodies], 'input');
  const sent = convert([...responses], 'output');
  for (const [name, schema] of Object.entries(requests.named)) {
    if (name in sent.named && JSON.stringify(sent.named[name]) !== JSON.stringify(schema)) {
      throw new Error(`${name} names a request's schema and a different response's`);
    }
  }
  return {
    of: (schema: z.ZodType) =>
      asComponentRefs((requests.each.get(schema) ?? sent.each.get(schema)) as JsonSchema),
    components: asComponentRefs({ ...requests.named, ...sent.named }),
  };
}

function operation(
  { doc: route, credentials }: DocumentedRoute,
  schemaOf: (schema: z.ZodType) => JsonSchema,
): JsonSchema {
  const headers = (names: string[]) =>
    Object.fromEntries(
      ['X-Request-Id', ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]),
    );
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      headers: headers(response.headers ?? []),
      ...(response.schema ? { content: json(schemaOf(response.schema)) } : {}),
    };
  }
  // Every request is at most 16 KB, and every route may fail; a credential may be rejected.
  const codes: ErrorCode[] = [
    ...(credentials.length > 0 || route.errors ? (['unauthorized'] as const) : []),
    ...(route.errors ?? []),
    'payload_too_large',
    'internal_error',
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retry = status === 429 || status === 503 ? ['Retry-After'] : [];
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\``).join(', '),
      headers: headers(retry),
      content: json(schemaOf(errorSchema)),
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    security: credentials.length > 0 ? [{ bearer: [] }] : [],
    ...(credentials.length > 0 ? { 'x-credentials': credentials } : {}),
    ...(route.parameters ? { parameters: route.parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.body.required ?? false,
            // Inline, not a component: generators read a request's defaults as optional only there.
            content: {
              ...json(schemaOf(route.body.schema)),
              ...Object.fromEntries(
                Object.entries(route.body.contentTypes ?? {}).map(([type, schema]) => [type, { schema }]),
              ),
            },
          },
        }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the interface: the routes the app registered, each with its own
 * description and schemas (a device's registration members and transports are the providers').
 */
export function openApiDocument(routes: readonly DocumentedRoute[]): JsonSchema {
  const schemas = schemasOf(routes);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route, schemas.of) };
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Foxbell',
      // The interface's version (its path prefix), not a package's.
      version: 'v1',
      summary: "Send a notification to a person's iPhone, Apple Watch and Vision Pro.",
      description:
        'Every response carries X-Request-Id. Lengths are UTF-8 bytes (x-max-bytes). A request is at most 16,384 bytes in all.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'A Foxbell service: the address it is reached at, without a trailing slash.',
        variables: { base_url: { default: 'http://127.0.0.1:8787' } },
      },
    ],
    paths,
    components: {
      schemas: schemas.components,
      headers: HEADERS,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A send token (fox_send_…), an account key (fox_acct_…) or the admin key; x-credentials says which.',
        },
      },
    },
  };
}
