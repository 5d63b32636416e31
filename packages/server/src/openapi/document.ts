import { ERROR_CODES, type ErrorCode } from '@foxbell/sdk/contract';
import type { PushProvider } from '../delivery/provider.js';
import { IDEMPOTENCY_KEY, type JsonSchema, schemasFor } from './schemas.js';

type Credential = 'send' | 'account' | 'admin' | 'device' | 'link';

interface Route {
  summary: string;
  /** Who may call it; none for the probes and this document. */
  credentials: Credential[];
  body?: { schema: string; required?: boolean; contentTypes?: Record<string, JsonSchema> };
  parameters?: JsonSchema[];
  answers: Record<number, { description: string; schema?: string; headers?: string[] }>;
  /** The error codes this route answers, beyond 401s and 500 (every credentialed route has those). */
  errors?: ErrorCode[];
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const pathId = (name: string, description: string): JsonSchema => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description,
});

const SEND_ERRORS: ErrorCode[] = [
  'invalid_request',
  'missing_field',
  'invalid_field',
  'conflicting_field',
  'invalid_scene',
  'invalid_scene_param',
  'forbidden',
  'scene_not_allowed',
  'idempotency_conflict',
  'payload_too_large',
  'unsupported_media_type',
  'urls_not_allowed',
  'quota_exceeded',
  'rate_limited',
  'service_unavailable',
];
const BODY_ERRORS: ErrorCode[] = ['invalid_request', 'missing_field', 'invalid_field', 'conflicting_field'];
const MANAGEMENT_WRITE: ErrorCode[] = [...BODY_ERRORS, 'forbidden', 'unsupported_media_type', 'rate_limited'];
const SEND_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Idempotent-Replayed',
];

const sendAnswers = {
  202: {
    description: 'Stored durably and queued for delivery.',
    schema: 'SendResponse',
    headers: SEND_HEADERS,
  },
};

/** Every route the service answers, keyed by OpenAPI path and method. */
const ROUTES: Record<string, Record<string, Route>> = {
  '/v1/notifications': {
    post: {
      summary: 'Send a notification',
      credentials: ['send'],
      body: { schema: 'SendFields', required: true },
      parameters: [{ name: 'Idempotency-Key', in: 'header', schema: IDEMPOTENCY_KEY }],
      answers: sendAnswers,
      errors: SEND_ERRORS,
    },
  },
  '/v1/send/{token}': Object.fromEntries(
    (['get', 'post'] as const).map((method) => [
      method,
      {
        summary:
          'Send with the token in the URL, from the query, a form, plain text, JSON and X-Title/X-Level',
        credentials: [],
        parameters: [
          pathId('token', 'A send token.'),
          { name: 'X-Title', in: 'header', schema: { type: 'string' }, description: 'title' },
          { name: 'X-Level', in: 'header', schema: { type: 'string' }, description: 'level' },
          { name: 'Idempotency-Key', in: 'header', schema: IDEMPOTENCY_KEY },
          {
            name: 'fields',
            in: 'query',
            style: 'form',
            explode: true,
            schema: { type: 'object', additionalProperties: { type: 'string' } },
            description: 'Send fields as name=value, and scene parameters as param.<name>=value.',
          },
        ],
        ...(method === 'post'
          ? {
              body: {
                schema: 'SendFields',
                contentTypes: {
                  'application/x-www-form-urlencoded': { type: 'object' },
                  'text/plain': { type: 'string', description: 'The message, exactly.' },
                },
              },
            }
          : {}),
        answers: sendAnswers,
        errors: SEND_ERRORS,
      } satisfies Route,
    ]),
  ),
  '/v1/notifications/{id}/status': {
    get: {
      summary: "A notification's status record",
      credentials: ['send', 'account'],
      parameters: [pathId('id', 'A notification id.')],
      answers: { 200: { description: 'The status record.', schema: 'StatusRecord' } },
      errors: ['forbidden', 'not_found'],
    },
  },
  '/v1/notifications/{id}/events': {
    post: {
      summary: 'Report that a person opened or cleared a notification on a device',
      credentials: ['account', 'device'],
      parameters: [pathId('id', 'A notification id.')],
      body: { schema: 'EventBody', required: true },
      answers: { 204: { description: 'Recorded.' } },
      errors: [...BODY_ERRORS, 'forbidden', 'not_found', 'unsupported_media_type'],
    },
  },
  '/v1/scenes': {
    get: {
      summary: 'The scene catalog',
      credentials: ['send', 'account', 'admin'],
      answers: { 200: { description: 'Every scene with its versions.', schema: 'Catalog' } },
    },
  },
  '/v1/devices': {
    get: {
      summary: "The account's devices (a send token sees active devices' names and platforms)",
      credentials: ['send', 'account'],
      answers: {
        200: {
          description: 'With a send token: DeviceNames. With an account key: Devices.',
          schema: 'DevicesAnswer',
        },
      },
      errors: ['forbidden'],
    },
    post: {
      summary: 'Register a device',
      credentials: ['account'],
      body: { schema: 'NewDeviceBody', required: true },
      answers: { 201: { description: 'The device.', schema: 'Device' } },
      errors: [...MANAGEMENT_WRITE, 'limit_reached', 'device_exists'],
    },
  },
  '/v1/devices/{id}': {
    patch: {
      summary: 'Rename a device, or take it into or out of auto',
      credentials: ['account'],
      parameters: [pathId('id', 'A device id.')],
      body: { schema: 'DeviceChangeBody' },
      answers: { 200: { description: 'The device.', schema: 'Device' } },
      errors: [...MANAGEMENT_WRITE, 'not_found'],
    },
    delete: {
      summary: 'Remove a device',
      credentials: ['account'],
      parameters: [pathId('id', 'A device id.')],
      answers: { 204: { description: 'Removed; its pending destinations are skipped.' } },
      errors: ['forbidden', 'not_found', 'rate_limited'],
    },
  },
  '/v1/web-push/key': {
    get: {
      summary: 'The VAPID application server key a browser subscribes to Web Push with',
      credentials: [],
      answers: {
        200: { description: 'The key, base64url (65 bytes, uncompressed P-256).', schema: 'WebPushKey' },
      },
    },
  },
  '/v1/link-requests': {
    post: {
      summary: 'A device asks to be linked: a code for its person to approve, a secret to poll with',
      credentials: [],
      body: { schema: 'NewLinkRequestBody', required: true },
      answers: { 201: { description: 'The request, its code and poll secret.', schema: 'NewLinkRequest' } },
      errors: [...BODY_ERRORS, 'device_exists', 'rate_limited', 'unsupported_media_type'],
    },
  },
  '/v1/link-requests/{id}': {
    get: {
      summary: "A link request's state; on the first read after approval, the device key",
      credentials: ['link'],
      parameters: [pathId('id', 'A link request id.')],
      answers: { 200: { description: 'Its state.', schema: 'LinkRequest' } },
      errors: ['forbidden', 'not_found'],
    },
    delete: {
      summary: 'Cancel a link request',
      credentials: ['link'],
      parameters: [pathId('id', 'A link request id.')],
      answers: { 204: { description: 'Cancelled.' } },
      errors: ['forbidden', 'not_found', 'link_not_pending', 'link_superseded'],
    },
  },
  '/v1/link-approvals': {
    post: {
      summary: "Approve a device's link code: it is registered to the approver's account",
      credentials: ['account', 'device'],
      body: { schema: 'LinkApprovalBody', required: true },
      answers: { 201: { description: 'The device registered.', schema: 'LinkApproval' } },
      errors: [
        ...MANAGEMENT_WRITE,
        'not_found',
        'link_locked',
        'link_superseded',
        'link_not_pending',
        'link_expired',
        'limit_reached',
      ],
    },
  },
  '/v1/device': {
    get: {
      summary: 'A linked device reads itself: whether it is active, its name, its transport',
      credentials: ['device'],
      answers: { 200: { description: 'The device.', schema: 'Device' } },
      errors: ['forbidden'],
    },
    patch: {
      summary:
        'A linked device renames itself, or registers a new push address, which makes it active again within the devices limit',
      credentials: ['device'],
      body: { schema: 'OwnDeviceChangeBody' },
      answers: { 200: { description: 'The device.', schema: 'Device' } },
      errors: [...MANAGEMENT_WRITE, 'device_exists', 'limit_reached'],
    },
    delete: {
      summary: 'A linked device leaves its account: removed, its key revoked',
      credentials: ['device'],
      answers: { 204: { description: 'Removed.' } },
      errors: ['forbidden', 'rate_limited'],
    },
  },
  '/v1/tokens': {
    get: {
      summary: "The account's send tokens, without secrets",
      credentials: ['account'],
      answers: {
        200: { description: 'Live tokens and the newest 50 revoked or expired.', schema: 'Tokens' },
      },
      errors: ['forbidden'],
    },
    post: {
      summary: 'Make a send token',
      credentials: ['account'],
      body: { schema: 'NewTokenBody' },
      answers: { 201: { description: 'The token, with its secret shown this once.', schema: 'NewToken' } },
      errors: [...MANAGEMENT_WRITE, 'limit_reached'],
    },
  },
  '/v1/tokens/{id}': {
    delete: {
      summary: 'Revoke a send token',
      credentials: ['account'],
      parameters: [pathId('id', 'A token id.')],
      answers: { 204: { description: 'Revoked.' } },
      errors: ['forbidden', 'not_found', 'rate_limited'],
    },
  },
  '/v1/accounts': {
    post: {
      summary: 'Make an account',
      credentials: ['admin'],
      body: { schema: 'NewAccountBody' },
      answers: { 201: { description: 'The account and its key, shown this once.', schema: 'NewAccount' } },
      errors: [...BODY_ERRORS, 'forbidden', 'unsupported_media_type'],
    },
  },
  '/v1/account/merge': {
    post: {
      summary: "Merge another account (by its key) into the caller's, which survives",
      credentials: ['account'],
      body: { schema: 'AccountMergeBody', required: true },
      answers: { 200: { description: 'The group the merge made.', schema: 'AccountMerge' } },
      errors: [...MANAGEMENT_WRITE, 'merge_group_full', 'limit_reached'],
    },
  },
  '/v1/account/key': {
    post: {
      summary: "Rotate the account's key",
      credentials: ['account'],
      body: { schema: 'KeyRotationBody' },
      answers: {
        201: { description: 'The new key; the old one then gives 401 key_rotated.', schema: 'RotatedKey' },
      },
      errors: [...MANAGEMENT_WRITE, 'rotation_conflict'],
    },
  },
  '/v1/account': {
    delete: {
      summary: 'Delete the account',
      credentials: ['account'],
      answers: { 204: { description: 'Deleted; its key and tokens then give 401 account_deleted.' } },
      errors: ['forbidden', 'rate_limited'],
    },
  },
  '/v1/inbox': {
    get: {
      summary: "What the account's devices were sent, newest first",
      credentials: ['account', 'device'],
      parameters: [
        { name: 'cursor', in: 'query', schema: { type: 'string' } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
      ],
      answers: { 200: { description: 'A page of the inbox.', schema: 'Inbox' } },
      errors: ['invalid_field', 'forbidden', 'cursor_expired'],
    },
  },
  '/v1/admin/pause': {
    post: {
      summary: 'Pause or resume every send',
      credentials: ['admin'],
      body: { schema: 'PauseBody', required: true },
      answers: { 200: { description: 'The pause in force.', schema: 'Pause' } },
      errors: [...BODY_ERRORS, 'forbidden', 'unsupported_media_type'],
    },
  },
  '/healthz': {
    get: {
      summary: 'Liveness: the process serves requests',
      credentials: [],
      answers: { 200: { description: 'Alive.', schema: 'Health' } },
    },
  },
  '/readyz': {
    get: {
      summary: 'Readiness: the database answers with its migrations applied, and no stop has begun',
      credentials: [],
      answers: {
        200: { description: 'Ready.', schema: 'Readiness' },
        503: { description: 'Not ready.', schema: 'Readiness' },
      },
    },
  },
  '/openapi.json': {
    get: {
      summary: 'This document',
      credentials: [],
      answers: { 200: { description: 'The OpenAPI 3.1 document of this interface.' } },
    },
  },
};

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

function operation(route: Route): JsonSchema {
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
    ...(route.credentials.length > 0 || route.errors ? (['unauthorized'] as const) : []),
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
    security: route.credentials.length > 0 ? [{ bearer: [] }] : [],
    ...(route.credentials.length > 0 ? { 'x-credentials': route.credentials } : {}),
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
 * The OpenAPI 3.1 document of the whole interface, from the contract's schemas and constants, with
 * the registration members of `providers`.
 */
export function openApiDocument(providers: readonly PushProvider[]): JsonSchema {
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
    paths: Object.fromEntries(
      Object.entries(ROUTES).map(([path, methods]) => [
        path,
        Object.fromEntries(Object.entries(methods).map(([method, route]) => [method, operation(route)])),
      ]),
    ),
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
