import net from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  createAccount,
  linkedDevice,
  pushToken,
  serverForAll,
  startServer,
  type TestServer,
} from '../helpers.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A log at the default level (info) into `lines`. */
function logInto(lines: string[]) {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { level: 'info', stream };
}

/** A server of its own logging into `lines`, for a test that changes its limits. */
async function serverWithLog(
  limits: NonNullable<Parameters<typeof startServer>[0]>['limits'],
): Promise<{ server: TestServer; lines: string[] }> {
  const lines: string[] = [];
  const server = await startServer({ logger: logInto(lines), limits });
  return { server, lines };
}

/**
 * One server for the other tests, each with an account of its own, none moving the clock: its log
 * lines are those of the test running (emptied before each). The few unknown credentials they
 * present stay below the limit of 30 a minute per client address.
 */
const sharedLines: string[] = [];
const shared = serverForAll({ logger: logInto(sharedLines) });
beforeEach(() => {
  sharedLines.length = 0;
});
const sharedWithLog = () => ({ server: shared(), lines: sharedLines });

interface RawResponse {
  status: number;
  head: string;
  headers: Map<string, string>;
  body: string;
}

/** Sends `bytes` as they are and reads the one response (the request asks to close after it). */
function exchange(url: string, bytes: string | Buffer): Promise<RawResponse> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const at = text.indexOf('\r\n\r\n');
      const head = text.slice(0, at);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
        }),
      );
      let body = text.slice(at + 4);
      if (headers.get('transfer-encoding') === 'chunked') {
        body = body.replace(/^[0-9a-f]+\r\n/, '').replace(/\r\n0\r\n\r\n$/, '');
      }
      resolve({ status: Number(statusLine.split(' ')[1]), head, headers, body });
    });
    // Not half-closed: every request asks for `Connection: close`, so the server ends it.
    socket.write(bytes);
  });
}

/** Asserts the spec's error body with `X-Request-Id` equal to its `request_id`. */
function expectSpecError(answer: RawResponse, status: number, code: string) {
  const requestId = answer.headers.get('x-request-id');
  expect(requestId, answer.head).toMatch(/^req_\w+$/);
  const body = JSON.parse(answer.body);
  expect([answer.status, body.error?.code, body.request_id]).toEqual([status, code, requestId]);
}

describe('credentials in odd URLs never reach a log line or a response', () => {
  it('hides a send token in every spelling of the URL-token path, accepted or rejected', async () => {
    const { server, lines } = sharedWithLog();
    const account = await createAccount(server);
    const token = account.token;
    const secret = token.slice('fox_send_'.length);
    const encodedFirst = `%${token.charCodeAt(0).toString(16)}${token.slice(1)}`;
    const cases: [string, number][] = [
      [`http://x/v1/send/${token}?message=hi`, 202],
      [`/v1/%73end/${token}?message=hi`, 202],
      [`/v1/send/${encodedFirst}?message=hi`, 202],
      [`//v1/send/${token}`, 404],
      [`/v1/send//${token}`, 404],
      [`/v1/Send/${token}`, 404],
      [`/v1/send%2F${token}`, 404],
      [`/v1/send/${token}%ZZ`, 400],
      [`/v1/send/${token.slice(0, -1)}`, 401],
      [`/v1/notifications/${account.key}/status`, 401],
      [`/v1/send/${encodeURIComponent(ADMIN_KEY)}?message=hi`, 403],
    ];
    for (const [target, status] of cases) {
      const answer = await exchange(
        server.url,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status, target).toBe(status);
      expect(answer.headers.get('x-request-id'), target).toMatch(/^req_\w+$/);
      for (const hidden of [secret, account.key.slice(9), ADMIN_KEY, token.slice(0, -1)]) {
        expect(answer.body, target).not.toContain(hidden);
      }
    }
    const log = lines.join('');
    expect(log.match(/"msg":"request"/g)).toHaveLength(cases.length + 5);
    for (const hidden of [secret, secret.slice(0, 20), account.key.slice(9), ADMIN_KEY, encodedFirst]) {
      expect(log).not.toContain(hidden);
    }
    expect(log).toContain('"path":"/v1/send/<redacted>"');
  });

  it('logs no query string, so the text of a URL-token send stays out of the log', async () => {
    const { server, lines } = sharedWithLog();
    const account = await createAccount(server);
    const sent = await server.request(
      'GET',
      `/v1/send/${account.token}?message=${encodeURIComponent('Door code is X4711Q')}&title=Garage`,
    );
    expect(sent.status).toBe(202);
    const missing = await server.request('GET', '/v1/nowhere?message=Another%20secret');
    expect(missing.status).toBe(404);
    const log = lines.join('');
    for (const text of ['X4711Q', 'Door', 'Garage', 'message=', 'Another']) expect(log).not.toContain(text);
    expect(log).toContain('"path":"/v1/nowhere"');
  });

  it("keeps the ids of a matched route whole, so an operator finds a person's notification, device or token", async () => {
    const { server, lines } = sharedWithLog();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'hi' },
    });
    const id: string = sent.body.id;
    expect(id).toMatch(/^ntf_\w{20,}$/);
    expect(
      (await server.request('GET', `/v1/notifications/${id}/status`, { token: account.token })).status,
    ).toBe(200);
    const devices = await server.request('GET', '/v1/devices', { token: account.key });
    const device: string = devices.body.devices[0].id;
    expect((await server.request('DELETE', `/v1/devices/${device}`, { token: account.key })).status).toBe(
      204,
    );
    const log = lines.join('');
    expect(log).toContain(`"path":"/v1/notifications/${id}/status"`);
    expect(log).toContain(`"path":"/v1/devices/${device}"`);
    // A credential in an id's place is no id: hidden, as anywhere else.
    await server.request('GET', `/v1/notifications/${account.token}/status`, { token: account.token });
    expect(lines.join('')).not.toContain(account.token.slice(9));
  });
});

describe('a credential in a path is hidden from its prefix to the end of its segment, however it is spelled', () => {
  /** Every credential kind of the service: a send token, an account key, a device key, a poll secret. */
  async function everyCredential(server: TestServer) {
    const account = await createAccount(server);
    const device = await linkedDevice(server, account.key);
    const pending = await server.request('POST', '/v1/link-requests', {
      json: { device_id: 'log-spellings', name: 'Tablet', platform: 'ios', push_token: pushToken() },
    });
    expect(pending.status, pending.text).toBe(201);
    return {
      send: account.token,
      account: account.key,
      device: device.key,
      poll: pending.body.secret as string,
    };
  }

  /** How the part of a credential after its first 16 characters may be joined to them. */
  const JOINS: [string, 'unreadable' | 'read'][] = [
    ['%ZZ', 'unreadable'],
    ['%C0%AE', 'unreadable'],
    ['%ff', 'unreadable'],
    ['%E2%82', 'unreadable'],
    ['.', 'read'],
    ['%2E', 'read'],
    ['%2F', 'read'],
    ['%00', 'read'],
    ['%E2%82%AC', 'read'],
    [';', 'read'],
    ['~', 'read'],
    ['!', 'read'],
    ['%20', 'read'],
    ['-', 'read'],
  ];

  /** How the prefix itself may be spelled: as issued, percent-encoded (once or twice), in other cases. */
  const PREFIXES: [string, (prefix: string) => string][] = [
    ['as issued', (prefix) => prefix],
    ['first letter encoded', (prefix) => `%${prefix.charCodeAt(0).toString(16)}${prefix.slice(1)}`],
    [
      'every character encoded',
      (prefix) => [...prefix].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
    ],
    ['underscores encoded twice', (prefix) => prefix.replaceAll('_', '%255F')],
    ['upper case', (prefix) => prefix.toUpperCase()],
    [
      'mixed case',
      (prefix) => prefix.replace('fox', 'Fox').replace(/_([a-z])/, (_, c: string) => `_${c.toUpperCase()}`),
    ],
  ];

  /** The paths a credential may be put in: a token's place, an id's place, and no route at all. */
  const PLACES: [string, (segment: string) => string, string][] = [
    ['GET', (segment) => `/v1/send/${segment}`, '/v1/send/<redacted>'],
    ['GET', (segment) => `/v1/notifications/${segment}/status`, '/v1/notifications/<redacted>/status'],
    ['DELETE', (segment) => `/v1/devices/${segment}`, '/v1/devices/<redacted>'],
    ['GET', (segment) => `/nowhere/${segment}/after`, '/nowhere/<redacted>/after'],
  ];

  it('hides every credential kind, its prefix spelled six ways and its rest joined 14 ways, in four places', async () => {
    // Each of the 1,344 requests is one unknown credential of this address.
    const { server, lines } = await serverWithLog({ failedCredentialsPerMinute: 10_000 });
    const credentials = await everyCredential(server);
    let requests = 0;
    for (const [kind, secret] of Object.entries(credentials)) {
      const prefix = secret.slice(0, secret.indexOf('_', 4) + 1);
      const body = secret.slice(prefix.length);
      const [first, rest] = [body.slice(0, 16), body.slice(16)];
      expect(`${prefix}${first}${rest}`, kind).toBe(secret);
      for (const [spelling, spell] of PREFIXES) {
        for (const [join, readable] of JOINS) {
          for (const [method, place, logged] of PLACES) {
            const path = place(`${spell(prefix)}${first}${join}${rest}`);
            const before = lines.length;
            const answer = await exchange(
              server.url,
              `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
            );
            requests += 1;
            const what = `${kind}, prefix ${spelling}, joined by ${join}: ${method} ${path}`;
            // A path that is not UTF-8 once decoded is 400; no route is 404; any route here needs
            // a credential in the Authorization header, or its token was not one: 401.
            const status = readable === 'unreadable' ? 400 : place === PLACES[3]?.[1] ? 404 : 401;
            expectSpecError(
              answer,
              status,
              { 400: 'invalid_request', 404: 'not_found', 401: 'unauthorized' }[status],
            );
            expect(answer.body, what).not.toContain(first);
            const line = lines.slice(before).join('');
            expect(line, what).not.toContain(first);
            expect(line, what).not.toContain(rest);
            // Every segment but the credential's is kept.
            expect(line, what).toContain(`"path":"${logged}"`);
          }
        }
      }
    }
    expect(requests).toBe(4 * PREFIXES.length * JOINS.length * PLACES.length);
    const log = lines.join('');
    for (const secret of Object.values(credentials)) expect(log).not.toContain(secret.slice(-16));
  });

  it('hides the admin key, and a path segment holding 12 of its characters in a row, however it is split', async () => {
    const { server, lines } = sharedWithLog();
    const [head, tail] = [ADMIN_KEY.slice(0, 17), ADMIN_KEY.slice(17)];
    for (const join of ['', '%ZZ', '%C0%AE', '.', '%2F', '%252F']) {
      for (const path of [`/v1/send/x${head}${join}${tail}`, `/nowhere/${head}${join}${tail}/after`]) {
        const before = lines.length;
        const answer = await exchange(
          server.url,
          `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
        );
        expect(answer.headers.get('x-request-id'), path).toMatch(/^req_\w+$/);
        const line = lines.slice(before).join('');
        expect(line, path).toMatch(/"msg":"request"/);
        for (const piece of [head, tail, head.slice(-12), tail.slice(0, 12)])
          expect(line, path).not.toContain(piece);
      }
    }
  });
});

describe('every response carries X-Request-Id and the spec error body', () => {
  it('a path that is not valid percent-encoding: 400 invalid_request, not the parser’s words', async () => {
    const { server } = sharedWithLog();
    const answer = await exchange(
      server.url,
      'PUT /v1/notifications/%ff/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
    );
    expectSpecError(answer, 400, 'invalid_request');
    expect(JSON.parse(answer.body).error.message).toBe('the request could not be read');
  });

  it('a request without Host: 400 invalid_request', async () => {
    const { server } = sharedWithLog();
    const answer = await exchange(server.url, 'GET /v1/scenes HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectSpecError(answer, 400, 'invalid_request');
  });

  it('an Expect other than 100-continue is ignored, as RFC 9110 allows, and the request responded', async () => {
    const { server } = sharedWithLog();
    const account = await createAccount(server);
    for (const expectation of ['bogus', 'x-foo=1']) {
      const answer = await exchange(
        server.url,
        `GET /v1/scenes HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${account.token}\r\nExpect: ${expectation}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status, expectation).toBe(200);
      expect(answer.headers.get('x-request-id')).toMatch(/^req_\w+$/);
    }
    const unknownRoute = await exchange(
      server.url,
      'GET /nowhere HTTP/1.1\r\nHost: localhost\r\nExpect: bogus\r\nConnection: close\r\n\r\n',
    );
    expectSpecError(unknownRoute, 404, 'not_found');
  });
});

describe('the 16 KB limit counts every header as sent', () => {
  it('rejects 3,900 empty headers and a 4 KB body (past Node’s count of 2,000) with 413', async () => {
    const { server } = sharedWithLog();
    const account = await createAccount(server);
    const body = JSON.stringify({ message: 'x'.repeat(4000) });
    const headers = 'x:\r\n'.repeat(3900);
    const head =
      `POST /v1/notifications HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${account.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n${headers}\r\n`;
    expect(head.length).toBeLessThan(16_384);
    expect(head.length + body.length).toBeGreaterThan(16_384);
    expectSpecError(await exchange(server.url, head + body), 413, 'payload_too_large');
    // The same request with the headers it needs only is accepted.
    const small = head.replace(headers, '');
    expect((await exchange(server.url, small + body)).status).toBe(202);
  });
});

describe('the 16 KB limit counts the request as it came over the wire', () => {
  /** The head of a send with these headers (and `Connection: close`), ready for a body. */
  const sendHead = (token: string, headers: string) =>
    `POST /v1/notifications HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nConnection: close\r\n${headers}\r\n`;

  it('counts the padding around a header value: 14,000 spaces and a 14 KB body are 413', async () => {
    const { server } = sharedWithLog();
    const { token } = await createAccount(server);
    const body = JSON.stringify({ message: 'x'.repeat(14_000) });
    const padded = sendHead(
      token,
      `X-Title: ${' '.repeat(14_000)}CI${' '.repeat(10)}\r\nContent-Length: ${body.length}\r\n`,
    );
    expectSpecError(await exchange(server.url, padded + body), 413, 'payload_too_large');
    // Exactly 16,384 bytes as sent, padding and all, is taken; one byte more is not.
    const fill = (total: number) => {
      const bare = sendHead(token, `X-Title: CI\r\nContent-Length: 16\r\n`);
      const room = total - bare.length - 16;
      return `${sendHead(token, `X-Title: ${' '.repeat(room)}CI\r\nContent-Length: 16\r\n`)}{"message":"hi"}`;
    };
    expect(Buffer.byteLength(fill(16_384))).toBe(16_384);
    expect((await exchange(server.url, fill(16_384))).status).toBe(202);
    expectSpecError(await exchange(server.url, fill(16_385)), 413, 'payload_too_large');
  });

  it('counts chunk framing and extensions as they arrive: 1-byte chunks with 1 KB extensions are cut off at 16 KB', async () => {
    const { server } = sharedWithLog();
    const { token } = await createAccount(server);
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    let written = 0;
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(sendHead(token, 'Transfer-Encoding: chunked\r\n'));
    // 4.5 MB if it were all read: each byte of the body costs 1,030 on the wire. Written a chunk
    // at a time, with a turn of the event loop between (the server runs in this process), until
    // a response comes.
    const chunk = `1;${'e='.padEnd(1024, 'x')}\r\n{\r\n`;
    for (let i = 0; i < 4_500 && chunks.length === 0 && socket.writable; i += 1) {
      written += chunk.length;
      socket.write(chunk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closed;
    const answer = Buffer.concat(chunks).toString('utf8');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer).toContain('"code":"payload_too_large"');
    // The response came while the body was still being written: the server stopped at the limit
    // instead of reading the 4.5 MB to their end (before, it responded only then). How far the
    // writer got first depends on the machine (a PostgreSQL lookup of the token comes first).
    expect(written).toBeLessThan(4_500 * chunk.length);
  });

  it('counts trailers: 8.5 KB of headers, 4.5 KB of body and 14.6 KB of trailers are 413', async () => {
    const { server } = sharedWithLog();
    const { token } = await createAccount(server);
    // 4.5 KB: a message of the longest kind, and JSON whitespace.
    const body = `${JSON.stringify({ message: 'x'.repeat(3_900) }).slice(0, -1)}${' '.repeat(590)}}`;
    const headers = `X-Pad: ${'h'.repeat(8_400)}\r\nTransfer-Encoding: chunked\r\n`;
    const trailers = `X-Trailer: ${'t'.repeat(14_600)}\r\n`;
    const request = `${sendHead(token, headers)}${body.length.toString(16)}\r\n${body}\r\n0\r\n${trailers}\r\n`;
    expectSpecError(await exchange(server.url, request), 413, 'payload_too_large');
    // Without the trailers it is taken.
    const without = await exchange(server.url, request.replace(trailers, ''));
    expect(without.status, without.body).toBe(202);
  });
});

describe('a field given twice in headers, and a body where none is read', () => {
  it('X-Title or X-Level twice with different values is 400 conflicting_field; twice with one value is one', async () => {
    const { server } = sharedWithLog();
    const account = await createAccount(server);
    const send = (headers: string) =>
      exchange(
        server.url,
        `POST /v1/send/${account.token}?message=hi HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`,
      );
    for (const [headers, field] of [
      ['X-Title: Deploy\r\nX-Title: Rollback\r\n', 'title'],
      ['X-Level: passive\r\nx-level: active\r\n', 'level'],
      ['Idempotency-Key: a\r\nIdempotency-Key: b\r\n', 'Idempotency-Key'],
    ] as const) {
      const answer = await send(headers);
      expectSpecError(answer, 400, 'conflicting_field');
      expect(JSON.parse(answer.body).error.field).toBe(field);
    }
    const same = await send('X-Title: Deploy\r\nX-Title: Deploy\r\n');
    expect(same.status).toBe(202);
    const stored = await server.store.getNotification(JSON.parse(same.body).id);
    expect(stored?.notification.title).toBe('Deploy');
  });

  it('a GET with a body is rejected with 400 invalid_request, never silently ignored', async () => {
    const { server } = sharedWithLog();
    const account = await createAccount(server);
    for (const framing of ['Content-Length: 16\r\n', 'Transfer-Encoding: chunked\r\n']) {
      const body = framing.startsWith('Content-Length')
        ? '{"title":"Lost"}'
        : '10\r\n{"title":"Lost"}\r\n0\r\n\r\n';
      const answer = await exchange(
        server.url,
        `GET /v1/send/${account.token}?message=hi HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${framing}Connection: close\r\n\r\n${body}`,
      );
      expectSpecError(answer, 400, 'invalid_request');
    }
    // Without a body the same GET sends.
    const plain = await exchange(
      server.url,
      `GET /v1/send/${account.token}?message=hi HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    expect(plain.status).toBe(202);
  });
});
