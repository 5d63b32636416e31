import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { PushProvider } from '../../src/delivery/provider.js';
import { ADMIN_KEY, bareAccount, createToken, expectError, send, startServer } from '../helpers.js';
import { apiProviders } from '../providers.js';
import { openTestStore } from '../test-database.js';

/**
 * Deny by default: a route is served without a credential only when it says so
 * (`config.credentials: 'none'`); the app refuses to start with a route that says nothing.
 */

/** The product's providers, and one more with `routes` of its own (registering no devices). */
function withRoutes(routes: (app: FastifyInstance) => Promise<void>) {
  return (...args: Parameters<typeof apiProviders>): PushProvider[] => {
    const providers = apiProviders(...args);
    const [first] = providers;
    if (!first) throw new Error('no provider');
    return [
      ...providers,
      { ...first, id: 'extra', registration: { ...first.registration, field: 'extra' }, routes },
    ];
  };
}

describe('a route is public only when it says so', () => {
  it('refuses to start an app with a route that says nothing of its credentials, naming the route', async () => {
    const store = await openTestStore();
    try {
      const providers = withRoutes(async (app) => {
        app.get('/v1/unsaid', async () => ({ secret: 'anyone could read this' }));
      })(store);
      const app = buildApp({ store, adminKey: ADMIN_KEY, providers });
      await expect(app.ready()).rejects.toThrow(
        "GET /v1/unsaid says nothing of its credentials: give config.credentials, or 'none' for a route anyone may call",
      );
      await app.close().catch(() => {});
    } finally {
      await store.close();
    }
  });

  it("serves a route that says 'none' to anyone, and one that names credentials to those only", async () => {
    const server = await startServer({
      providers: withRoutes(async (app) => {
        app.get('/v1/said-none', { config: { credentials: 'none' } }, async () => ({ open: true }));
        app.get('/v1/said-account', { config: { credentials: ['account'] } }, async () => ({ open: false }));
      }),
    });
    const open = await send(server.url, 'GET', '/v1/said-none');
    expect([open.status, open.body]).toEqual([200, { open: true }]);
    expect(open.headers.get('x-request-id')).toMatch(/^req_\w+$/);
    expectError(await send(server.url, 'GET', '/v1/said-account'), 401, 'unauthorized');
    const account = await bareAccount(server);
    const token = await createToken(server, account.key);
    expectError(await send(server.url, 'GET', '/v1/said-account', { token }), 403, 'forbidden');
    const read = await send(server.url, 'GET', '/v1/said-account', { token: account.key });
    expect([read.status, read.body]).toEqual([200, { open: false }]);
  });
});
