import { ERROR_CODES, type ErrorCode } from '@foxbell/sdk/contract';
import type { PushProvider } from '../delivery/provider.js';
import type { CredentialKind } from '../http/context.js';
import type { JsonSchema, RouteDoc } from '../kernel/route-doc.js';
import { schemasFor } from './schemas.js';

/** A route as the app registered it: its method and path, its credentials and what it says of itself. */
export interface DocumentedRoute {
  method: string;
  /** In OpenAPI's form: `/v1/devices/{id}`. */
  path: string;
  /** Who may call it; none for the probes, this document and a token in the path. */
  credentials: readonly CredentialKind[];
  doc: RouteDoc;
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
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

function operation({ doc: route, credentials }: DocumentedRoute): JsonSchema {
  const headers = (names: string[]) =>
    Object.fromEntries(
      ['X-Request-Id', ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]),
    );
  const responses: Record<string, JsonSchema> = {};
  for (const [status, answer] of Object.entries(route.answers)) {
    responses[status] = {
      description: answer.description,
      headers: headers(answer.headers ?? []),
      ...(answer.schema ? { content: json(ref(answer.schema)) } : {}),
    };
  }
  const codes: ErrorCode[] = [
    ...(credentials.length > 0 || route.errors ? (['unauthorized'] as const) : []),
    ...(route.errors ?? []),
    'internal_error',
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retry = status === 429 || status === 503 ? ['Retry-After'] : [];
    responses[String(status)] = {
      description: list.map((code) => `\`${code}\``).join(', '),
      headers: headers(retry),
      content: json(ref('Error')),
    };
  }
  return {
    summary: route.summary,
    security: credentials.length > 0 ? [{ bearer: [] }] : [],
    ...(credentials.length > 0 ? { 'x-credentials': credentials } : {}),
    ...(route.parameters ? { parameters: route.parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.body.required ?? false,
            content: {
              ...json(ref(route.body.schema)),
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
 * The OpenAPI 3.1 document of the interface: the routes the app registered with their own
 * descriptions, the contract's schemas, and the registration members of `providers`.
 */
export function openApiDocument(
  routes: readonly DocumentedRoute[],
  providers: readonly PushProvider[],
): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Foxbell',
      // The interface's version (its path prefix), not a package's.
      version: 'v1',
      summary: "Send a notification to a person's iPhone, Apple Watch and Vision Pro.",
      description:
        'Every answer carries X-Request-Id. Lengths are UTF-8 bytes (x-max-bytes). A request is at most 16,384 bytes in all.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    paths,
    components: {
      schemas: {
        ...schemasFor(providers),
        DevicesAnswer: { anyOf: [ref('DeviceNames'), ref('Devices')] },
      },
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
