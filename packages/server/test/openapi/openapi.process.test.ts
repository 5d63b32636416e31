import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ADMIN_KEY, startServer } from '../helpers.js';
import { apiProviders } from '../providers.js';
import { servedRoutes } from '../route-tree.js';
import { openTestStore } from '../test-database.js';

const COMMITTED = new URL('../../../../docs/openapi.json', import.meta.url);

type Schema = { [key: string]: unknown };

/** Members of a response its schema does not name: the document must say every one. */
function undocumented(schema: Schema, value: unknown, components: Record<string, Schema>, at = ''): string[] {
  if (typeof schema.$ref === 'string') {
    return undocumented(components[schema.$ref.split('/').pop() as string] as Schema, value, components, at);
  }
  if (Array.isArray(schema.anyOf)) {
    const readings = (schema.anyOf as Schema[]).map((option) => undocumented(option, value, components, at));
    return readings.reduce((fewest, list) => (list.length < fewest.length ? list : fewest));
  }
  if (Array.isArray(value) && schema.items) {
    return value.flatMap((item, i) => undocumented(schema.items as Schema, item, components, `${at}[${i}]`));
  }
  if (value === null || typeof value !== 'object' || !schema.properties) return [];
  const properties = schema.properties as Record<string, Schema>;
  return Object.entries(value).flatMap(([key, member]) =>
    Object.hasOwn(properties, key)
      ? undocumented(properties[key] as Schema, member, components, `${at}.${key}`)
      : [`${at}.${key}`],
  );
}

/** A real server (closed after each test by the helpers) and the document it serves. */
async function served() {
  const server = await startServer();
  const document: Schema = (await server.request('GET', '/openapi.json')).body;
  return { server, document };
}

describe('the OpenAPI document', () => {
  it('is served to anyone at GET /openapi.json, and is a valid OpenAPI 3.1 document', async () => {
    const { server, document } = await served();
    const reply = await server.request('GET', '/openapi.json');
    expect([reply.status, reply.headers.get('content-type')]).toEqual([
      200,
      'application/json; charset=utf-8',
    ]);
    expect(reply.headers.get('x-request-id')).toMatch(/^req_/);
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result, JSON.stringify(result.errors, null, 2)).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
    // Every $ref points at something: resolving them all throws otherwise.
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('is committed as docs/openapi.json, as the server makes it (pnpm openapi writes it)', async () => {
    const { document } = await served();
    const committed = JSON.parse(await readFile(COMMITTED, 'utf8'));
    expect(committed, 'docs/openapi.json is stale: run pnpm openapi').toEqual(document);
  });

  it('has every route the app serves, and the app serves every route it has', async () => {
    const { document } = await served();
    const store = await openTestStore();
    const app = buildApp({ store, adminKey: ADMIN_KEY, providers: apiProviders(store) });
    try {
      await app.ready();
      // The web app's files (/app/…, and / that leads there) are pages for a browser, not the
      // interface; HEAD, which responds each GET, is left out of the document.
      const served = servedRoutes(app.printRoutes({ commonPrefix: false })).filter(
        (route) => !/^(GET \/(app(\/|$)|$)|HEAD )/.test(route),
      );
      const documented = Object.entries(document.paths as Record<string, Schema>)
        .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
        .sort();
      expect(served.length).toBeGreaterThan(15);
      expect(documented).toEqual(served);
    } finally {
      await app.close();
      await store.close();
    }
  });

  it("describes the server's real responses, member by member", async () => {
    const { server, document } = await served();
    const components = (document.components as { schemas: Record<string, Schema> }).schemas;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'doc', components: { schemas: components } });
    const check = (name: string, reply: { status: number; body: unknown; text: string }, status: number) => {
      expect(reply.status, reply.text).toBe(status);
      const validate = ajv.getSchema(`doc#/components/schemas/${name}`);
      expect(validate?.(reply.body), `${name}: ${JSON.stringify(validate?.errors)}`).toBe(true);
      expect(undocumented(components[name] as Schema, reply.body, components), name).toEqual([]);
    };

    const account = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: { name: 'Ana' } });
    check('NewAccount', account, 201);
    const key = account.body.key as string;
    const device = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'iPhone', platform: 'ios', push_token: 'a'.repeat(64) },
    });
    check('Device', device, 201);
    check(
      'Device',
      await server.request('PATCH', `/v1/devices/${device.body.id}`, {
        token: key,
        json: { in_auto: false },
      }),
      200,
    );
    const token = await server.request('POST', '/v1/tokens', {
      token: key,
      json: { name: 'CI', scenes: ['rocket', 'notice'], expires_at: '2030-01-01T00:00:00.000Z' },
    });
    check('NewToken', token, 201);
    check('Tokens', await server.request('GET', '/v1/tokens', { token: key }), 200);
    check('Devices', await server.request('GET', '/v1/devices', { token: key }), 200);
    check('DevicesResponse', await server.request('GET', '/v1/devices', { token: token.body.token }), 200);
    check('DeviceNames', await server.request('GET', '/v1/devices', { token: token.body.token }), 200);
    check('Catalog', await server.request('GET', '/v1/scenes', { token: token.body.token }), 200);
    const sent = await server.request('POST', '/v1/notifications', {
      token: token.body.token,
      json: {
        message: 'Deployed',
        title: 'api',
        scene: 'rocket',
        scene_params: { countdown: 5 },
        tag: 'deploy',
      },
    });
    check('SendResponse', sent, 202);
    check(
      'StatusRecord',
      await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token: key }),
      200,
    );
    check('Inbox', await server.request('GET', '/v1/inbox?limit=5', { token: key }), 200);
    check('RotatedKey', await server.request('POST', '/v1/account/key', { token: key, json: {} }), 201);
    check(
      'Pause',
      await server.request('POST', '/v1/admin/pause', { token: ADMIN_KEY, json: { paused: false } }),
      200,
    );
    check('Health', await server.request('GET', '/healthz'), 200);
    check('Readiness', await server.request('GET', '/readyz'), 200);
    check('Error', await server.request('GET', '/v1/nowhere'), 404);
    check('Error', await server.request('POST', '/v1/notifications', { token: sent.body.id, json: {} }), 401);
  });

  it('gives each send field the limits the contract enforces', async () => {
    const { document } = await served();
    // The send's body is given in the operation itself: a generator reads its defaults as fields
    // a client need not send only there (in components, openapi-typescript makes them required).
    type Operation = { requestBody: { content: Record<string, { schema: Schema }> } };
    const send = (document.paths as Record<string, { post: Operation }>)['/v1/notifications']?.post;
    const fields = send?.requestBody.content['application/json']?.schema.properties as Record<string, Schema>;
    expect(fields.title).toMatchObject({ type: 'string', maxLength: 250, 'x-max-bytes': 250 });
    expect(fields.message).toMatchObject({ type: 'string', minLength: 1, 'x-max-bytes': 4000 });
    expect(fields.ttl).toMatchObject({ type: 'integer', minimum: 1, maximum: 2_592_000, default: 86_400 });
    expect(fields.tag).toMatchObject({ pattern: '^[A-Za-z0-9._-]{1,64}$' });
    expect(fields.level).toMatchObject({
      anyOf: [
        { type: 'string', enum: ['passive', 'active', 'time-sensitive', '-2', '-1', '0', '1', '2'] },
        { type: 'integer', enum: [-2, -1, 0, 1, 2] },
      ],
    });
    expect(Object.keys(fields)).toEqual([
      'message',
      'title',
      'subtitle',
      'scene',
      'scene_version',
      'scene_params',
      'bell_color',
      'url',
      'url_title',
      'image',
      'level',
      'group',
      'tag',
      'sound',
      'ttl',
      'target',
      'body',
      'text',
    ]);
  });
});
