import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ADMIN_KEY, createAccount, startServer, type TestServer } from '../helpers.js';
import { apiProviders } from '../providers.js';
import { type RawResponse, rawExchange } from '../raw-http.js';
import { servedRoutes } from '../route-tree.js';
import { openTestStore } from '../test-database.js';

/**
 * HEAD works on every GET route as GET does, without its body (RFC 9110, 9.3.2): uptime monitors
 * and link checkers probe with it. Two GETs change something and have no HEAD: the URL-token send
 * (a link previewer's probe must not send) and a link request's poll (its first read after
 * approval takes the device key, which a HEAD would lose).
 */
const WITHOUT_HEAD = ['/v1/link-requests/{id}', '/v1/send/{token}'];

/** One request on a connection of its own, with a credential when one is given. */
function exchange(url: string, method: string, path: string, credential?: string): Promise<RawResponse> {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    ...(credential === undefined ? [] : [`Authorization: Bearer ${credential}`]),
  ];
  return rawExchange(url, `${lines.join('\r\n')}\r\n\r\n`);
}

/** Asserts that a HEAD response is the GET response without its body: same status, same headers. */
function expectHeadOf(get: RawResponse, head: RawResponse, what: string) {
  const comparable = (answer: RawResponse) => {
    const headers = new Map(answer.headers);
    // Each response has its own request id and date.
    expect(headers.get('x-request-id'), what).toMatch(/^req_\w+$/);
    headers.delete('x-request-id');
    headers.delete('date');
    return { statusLine: answer.statusLine, headers: Object.fromEntries(headers) };
  };
  expect(comparable(head), what).toEqual(comparable(get));
  expect(head.rest.length, what).toBe(0);
  if (get.headers.has('content-length')) {
    expect(Number(get.headers.get('content-length')), what).toBe(get.rest.length);
  }
}

async function accountAndNotification(server: TestServer) {
  const account = await createAccount(server);
  const sent = await server.request('POST', '/v1/notifications', {
    token: account.token,
    json: { message: 'hello' },
  });
  expect(sent.status, sent.text).toBe(202);
  return { account, notificationId: sent.body.id as string };
}

describe('HEAD', () => {
  it('answers a few routes as GET does, byte for byte but the body: health, the web app, the document, an error', async () => {
    const server = await startServer();
    const cases: [string, string | undefined, string][] = [
      ['/healthz', undefined, 'HTTP/1.1 200 OK'],
      ['/app/', undefined, 'HTTP/1.1 200 OK'],
      ['/app/icon-192.png', undefined, 'HTTP/1.1 200 OK'],
      ['/openapi.json', undefined, 'HTTP/1.1 200 OK'],
      ['/v1/devices', undefined, 'HTTP/1.1 401 Unauthorized'],
      ['/v1/scenes', ADMIN_KEY, 'HTTP/1.1 200 OK'],
    ];
    for (const [path, credential, statusLine] of cases) {
      const get = await exchange(server.url, 'GET', path, credential);
      const head = await exchange(server.url, 'HEAD', path, credential);
      expect(head.statusLine, path).toBe(statusLine);
      expect(Number(head.headers.get('content-length')), path).toBeGreaterThan(0);
      expectHeadOf(get, head, path);
    }
    // A path no route has: the spec's 404, its body (which names the method) left out.
    const unknown = await exchange(server.url, 'HEAD', '/v1/nothing-here');
    expect([unknown.statusLine, unknown.headers.get('x-request-id'), unknown.rest.length]).toEqual([
      'HTTP/1.1 404 Not Found',
      expect.stringMatching(/^req_\w+$/),
      0,
    ]);
  });

  it('answers every GET route the app registers as GET does, with each kind of credential, and never sends', async () => {
    const server = await startServer();
    const { account, notificationId } = await accountAndNotification(server);
    const link = await server.request('POST', '/v1/link-requests', {
      json: { device_id: 'head-test-device', name: 'iPad', platform: 'ios', push_token: 'd'.repeat(64) },
    });
    expect(link.status, link.text).toBe(201);

    const store = await openTestStore();
    const app = buildApp({ store, adminKey: ADMIN_KEY, providers: apiProviders(store) });
    await app.ready();
    const routes = servedRoutes(app.printRoutes({ commonPrefix: false }));
    await app.close();
    await store.close();

    const gets = routes.filter((route) => route.startsWith('GET ')).map((route) => route.slice(4));
    expect(gets.length).toBeGreaterThan(20);
    // Fastify's own HEAD route stands beside every GET but those two.
    expect(gets.filter((path) => !routes.includes(`HEAD ${path}`))).toEqual(WITHOUT_HEAD);

    const samples: Record<string, string> = {
      '/v1/notifications/{id}/status': `/v1/notifications/${notificationId}/status`,
      '/v1/link-requests/{id}': `/v1/link-requests/${link.body.id}`,
      '/v1/send/{token}': `/v1/send/${account.token}?message=probed`,
    };
    const credentials = [undefined, ADMIN_KEY, account.key, account.token, link.body.secret as string];
    const statuses = new Set<string>();
    for (const path of gets.filter((route) => !WITHOUT_HEAD.includes(route))) {
      const concrete = samples[path] ?? path;
      expect(concrete, `a sample for ${path}`).not.toContain('{');
      for (const credential of credentials) {
        const get = await exchange(server.url, 'GET', concrete, credential);
        const head = await exchange(server.url, 'HEAD', concrete, credential);
        expectHeadOf(get, head, `${concrete} with ${credential?.slice(0, 9) ?? 'no credential'}`);
        statuses.add(get.statusLine);
      }
    }
    // Responses of every kind were compared, not only errors.
    expect([...statuses].sort()).toEqual(
      expect.arrayContaining(['HTTP/1.1 200 OK', 'HTTP/1.1 401 Unauthorized', 'HTTP/1.1 403 Forbidden']),
    );

    // A HEAD of a URL-token send is no send: 404, and the inbox holds only the one sent above.
    const probe = await exchange(server.url, 'HEAD', samples['/v1/send/{token}'] as string);
    expect([probe.statusLine, probe.rest.length]).toEqual(['HTTP/1.1 404 Not Found', 0]);
    const inbox = await server.request('GET', '/v1/inbox', { token: account.key });
    expect(inbox.body.items.map((item: { message: string }) => item.message)).toEqual(['hello']);

    // A HEAD of an approved link request's poll takes nothing: the GET after it has the device key.
    const approved = await server.request('POST', '/v1/link-approvals', {
      token: account.key,
      json: { code: link.body.code },
    });
    expect(approved.status, approved.text).toBe(201);
    const poll = samples['/v1/link-requests/{id}'] as string;
    const polled = await exchange(server.url, 'HEAD', poll, link.body.secret);
    expect([polled.statusLine, polled.rest.length]).toEqual(['HTTP/1.1 404 Not Found', 0]);
    const read = await server.request('GET', poll, { token: link.body.secret });
    expect([read.status, read.body.state, read.body.device_key]).toEqual([
      200,
      'approved',
      expect.stringMatching(/^fox_dev_/),
    ]);
  });
});
