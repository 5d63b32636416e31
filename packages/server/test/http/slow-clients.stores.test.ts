import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ADMIN_KEY, createAccount, ManualClock, send, type TestServer } from '../helpers.js';
import { apiProviders } from '../providers.js';
import { openTestStore } from '../test-database.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** The app with short limits on slow clients, on a free port. */
async function serverWithTimeouts(): Promise<TestServer> {
  const clock = new ManualClock();
  const store = await openTestStore();
  const app = buildApp({
    store,
    clock,
    providers: apiProviders(store, clock),
    adminKey: ADMIN_KEY,
    timeouts: { headersMs: 400, requestMs: 800, keepAliveMs: 600 },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  closing.push(async () => {
    await app.close();
    await store.close();
  });
  return {
    url,
    clock,
    store,
    metrics: undefined,
    // This app is made without a logger: it logs nothing.
    log: app.log,
    logged: () => [],
    request: (method, path, options = {}) => send(url, method, path, options),
    close: () => app.close(),
  };
}

/** A raw connection: what it was sent back, and when it was closed. */
function connect(url: string) {
  const { port } = new URL(url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
  socket.on('error', () => {});
  return { socket, received: () => received, closed };
}

const JSON_BODY = '{"message":"hi"}';

describe('slow and malformed clients', () => {
  it('closes a connection whose headers never end, while others are served', async () => {
    const server = await serverWithTimeouts();
    const account = await createAccount(server);
    const slow = connect(server.url);
    slow.socket.write('POST /v1/notifications HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    // Meanwhile a well-behaved client gets its response at once.
    const fine = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi' },
    });
    expect(fine.status).toBe(202);
    const after = await slow.closed;
    expect(after).toBeGreaterThanOrEqual(350);
    expect(after).toBeLessThan(3000);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 400 /);
    expect(slow.received()).toContain(
      '"code":"invalid_request","message":"the request did not arrive in time',
    );
  });

  it('closes a connection whose body stops short of its Content-Length', async () => {
    const server = await serverWithTimeouts();
    const account = await createAccount(server);
    const slow = connect(server.url);
    slow.socket.write(
      `POST /v1/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${JSON_BODY.length + 50}\r\n\r\n${JSON_BODY}`,
    );
    const after = await slow.closed;
    expect(after).toBeLessThan(3000);
    expect(slow.received()).not.toMatch(/ 202 /);
    // Nothing was stored for it.
    const inbox = await server.request('GET', '/v1/inbox', { token: account.key });
    expect(inbox.body.items).toEqual([]);
  });

  it('takes a body longer than its Content-Length as what the length says, and the rest as a bad request', async () => {
    const server = await serverWithTimeouts();
    const account = await createAccount(server);
    const client = connect(server.url);
    const body = `${JSON_BODY}GARBAGE THAT IS NOT HTTP\r\n\r\n`;
    client.socket.write(
      `POST /v1/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${account.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${JSON_BODY.length}\r\n\r\n${body}`,
    );
    expect(await client.closed).toBeLessThan(3000);
    // The excess is the next request, which is not HTTP: 400 and the connection closes. (The first
    // may get its response before it or be cut off; a client that did not see its 202 retries with its key.)
    expect(client.received()).toMatch(/HTTP\/1\.1 400 Bad Request\r\n/);
    expect(client.received()).toContain('"code":"invalid_request","message":"the request is not valid HTTP"');
    expect(client.received()).not.toMatch(/ 5\d\d /);
  });

  it('closes an idle keep-alive connection, and a connection that never sends anything', async () => {
    const server = await serverWithTimeouts();
    const idle = connect(server.url);
    idle.socket.write('GET /v1/scenes HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await idle.closed).toBeLessThan(3000);
    expect(idle.received()).toMatch(/^HTTP\/1\.1 401 /);
    const silent = connect(server.url);
    expect(await silent.closed).toBeLessThan(3000);
    expect(silent.received()).toMatch(/^(|HTTP\/1\.1 400 [\s\S]*did not arrive in time[\s\S]*)$/s);
  });
});
