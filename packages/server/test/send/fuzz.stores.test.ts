import { Writable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ERROR_CODES, statusOf } from '@foxbell/sdk/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, createAccount, startServer, type TestServer } from '../helpers.js';
import { TEST_STORE } from '../test-database.js';

/**
 * Property-based tests of both send endpoints: whatever arrives, the response is `202` or one of
 * the spec's errors with its body and request id, never a 500 and never a hang. `FOXBELL_LONG=1`
 * runs many more cases (see docs/reliability.md).
 */
const LONG = process.env.FOXBELL_LONG === '1';
/** Cases per endpoint: each one or two requests, so the long run makes over 100,000 requests. */
const RUNS = LONG ? 50_000 : 150;
/** Each case is one or two requests; the long variant needs minutes. */
const TIMEOUT_MS = RUNS * 40 + 10_000;
const NO_LIMITS = {
  perTokenPerMinute: 1e9,
  perAccountPerMinute: 1e9,
  perAccountPerMonth: 1e12,
  managementWritesPerMinute: 1e9,
  eventsPerMinute: 1e9,
  linkRequestsPerWindow: 1e9,
  failedCredentialsPerMinute: 1e9,
  // The locks and limits of approvals stay as they are: reaching them is a response to check too.
};

// One server for the file: the properties run many requests, each on its own.
let server: TestServer;
let account: Account;
let closeServer: () => Promise<void>;
beforeAll(async () => {
  // The long run logs warnings only: the suite keeps every log line it is given (to look for
  // secrets in them), and 100,000 requests' lines would be the test's memory, not the server's.
  const quiet = { level: 'warn', stream: new Writable({ write: (_chunk, _encoding, done) => done() }) };
  server = await startServer({ limits: NO_LIMITS, ...(LONG ? { logger: quiet } : {}) });
  account = await createAccount(server, { allow_urls: true });
  // startServer's servers are closed after each test; this one lives for the file.
  closeServer = server.close;
  server.close = async () => {};
});
afterAll(() => closeServer());

/** Requests made, and the heap of this process (which runs the server) after a collection, in MB. */
let requests = 0;
let heapBefore = 0;
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;
const heapMb = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
beforeAll(() => {
  heapBefore = heapMb();
});
afterAll(() => {
  const heapAfter = heapMb();
  console.info(
    `fuzz on ${TEST_STORE}: ${requests} requests to the send endpoints and the person's routes, every answer a success of its route or a spec error ` +
      `with its request id, none 5xx; heap after a collection ${Math.round(heapBefore)} → ${Math.round(heapAfter)} MB`,
  );
  // Bounded: what is sent is stored, not kept in memory.
  if (LONG) expect(heapAfter - heapBefore).toBeLessThan(64);
});

interface Raw {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
}

/** The error code of the last response `check` read (undefined for a 202). */
let lastErrorCode: string | undefined;

/**
 * Sends a request as given and checks the response against the spec; returns its status. A send's
 * only success is `202`; other routes name theirs.
 */
async function check(raw: Raw, successes: readonly number[] = [202]): Promise<number> {
  requests += 1;
  const response = await fetch(`${server.url}${raw.path}`, {
    method: raw.method,
    headers: raw.headers,
    ...(raw.body === undefined || raw.method === 'GET' ? {} : { body: raw.body as BodyInit }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const requestId = response.headers.get('x-request-id');
  expect(requestId, text).toMatch(/^req_/);
  expect(response.status, text).not.toBeGreaterThanOrEqual(500);
  if (response.status < 300) expect(successes, text).toContain(response.status);
  const body = response.status === 204 ? {} : JSON.parse(text);
  lastErrorCode = body.error?.code;
  if (response.status !== 202 && response.status < 300) return response.status;
  if (response.status === 202) {
    expect(body).toMatchObject({
      id: expect.stringMatching(/^ntf_/),
      status: 'accepted',
      request_id: requestId,
    });
  } else {
    expect(Object.keys(ERROR_CODES), text).toContain(body.error?.code);
    expect(response.status, text).toBe(statusOf(body.error.code));
    expect(typeof body.error.message).toBe('string');
    expect(body.request_id).toBe(requestId);
  }
  return response.status;
}

const FIELDS = [
  'message',
  'body',
  'text',
  'title',
  'subtitle',
  'scene',
  'scene_params',
  'scene_version',
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
  'version',
  'type',
  'attachments',
];

/** Strings that probe the rules: control characters, lone surrogates, long runs, odd numbers. */
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u001b[31m',
    '\ud800',
    '\uffff',
    '🦊'.repeat(50),
    '-0',
    '1e400',
    '9007199254740993',
    'NaN',
    'https://user:pw@1.2.3.4:99999/x',
    'https://xn--80ak6aa92e.com/',
    'rocket',
    'time-sensitive',
    '2',
  ),
  fc.integer({ min: 1, max: 17_000 }).map((n) => 'x'.repeat(n)),
);
const value = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
);
const sendBody = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })), value, {
  maxKeys: 8,
});

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'text/plain; charset=latin1',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  '',
);

/** Bodies: valid JSON of random fields, raw bytes (invalid UTF-8 included), deep nesting, repeats. */
const body = fc.oneof(
  sendBody.map((fields) => JSON.stringify({ message: 'hi', ...fields })),
  sendBody.map((fields) => JSON.stringify(fields)),
  fc.uint8Array({ maxLength: 300 }),
  fc.integer({ min: 1, max: 5000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc
    .integer({ min: 1, max: 300 })
    .map((depth) => `{"message":"x","scene_params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`),
  fc
    .tuple(fc.constantFrom(...FIELDS), fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }))
    .map(
      ([field, a, b]) => `{"message":"x","${field}":${JSON.stringify(a)},"${field}":${JSON.stringify(b)}}`,
    ),
  fc.integer({ min: 16_000, max: 16_800 }).map((size) => JSON.stringify({ message: 'm'.repeat(size) })),
  // Numbers JSON.stringify never writes.
  fc
    .tuple(
      fc.constantFrom('ttl', 'level', 'scene_version', 'message'),
      fc.constantFrom('1e400', '-1e400', '99999999999999999999999', '-0', '0.1e-999', '1E2'),
    )
    .map(([field, number]) => `{"message":"x","${field}":${number}}`),
  fc.string({ maxLength: 200 }),
);

/** Header values fetch can send: visible ASCII and spaces. */
const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

describe('the send endpoints under arbitrary input', () => {
  it(
    'POST /v1/notifications answers every body, type and header with 202 or a spec error',
    async () => {
      await fc.assert(
        fc.asyncProperty(body, contentType, fc.option(headerValue), async (payload, type, key) => {
          const headers: Record<string, string> = { authorization: `Bearer ${account.token}` };
          if (type !== '') headers['content-type'] = type;
          if (key !== null) headers['idempotency-key'] = key;
          await check({ method: 'POST', path: '/v1/notifications', headers, body: payload });
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'GET and POST /v1/send/<TOKEN> answer every query, header and body with 202 or a spec error',
    async () => {
      const pair = fc.tuple(
        fc.oneof(
          fc.constantFrom(...FIELDS, 'param.color', 'param.countdown', 'param[color]', 'msg'),
          fc.string({ maxLength: 6 }),
        ),
        fc.oneof(nasty, fc.integer().map(String)),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('GET', 'POST'),
          fc.array(pair, { maxLength: 6 }),
          fc.option(fc.tuple(fc.constantFrom('x-title', 'x-level', 'x-priority'), headerValue)),
          fc.option(fc.tuple(body, contentType)),
          async (method, query, header, sent) => {
            const search = new URLSearchParams(query).toString();
            const headers: Record<string, string> = {};
            if (header) headers[header[0]] = header[1];
            if (sent && sent[1] !== '') headers['content-type'] = sent[1];
            await check({
              method,
              path: `/v1/send/${account.token}${search ? `?${search}` : ''}`,
              headers,
              ...(sent ? { body: sent[0] } : {}),
            });
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it('answers percent-encoding that is not UTF-8, and paths at the 16 KB limit, without a 500', async () => {
    const statuses = await Promise.all([
      check({ method: 'GET', path: `/v1/send/${account.token}?message=%FF%FE`, headers: {} }),
      check({ method: 'GET', path: `/v1/send/${account.token}?message=%E2%82`, headers: {} }),
      check({ method: 'GET', path: `/v1/send/${account.token}?message=${'a'.repeat(16_500)}`, headers: {} }),
      check({ method: 'GET', path: `/v1/send/${account.token}?message=hi&message=hi`, headers: {} }),
    ]);
    expect(statuses).toEqual([400, 400, 413, 202]);
  });
});

/** Ids as a path segment: each character percent-encoded as UTF-8, or as raw bytes that are not. */
const encodedId = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }).map((text) => encodeURIComponent(text)),
  fc
    .uint8Array({ maxLength: 20 })
    .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom('%00', '%FF', '%C0%80', '%ED%A0%80', 'x'.repeat(200), '%E2%82'),
);
/** An id of each kind with something after its prefix: mostly not letters and digits. */
const prefixed = (prefix: string) =>
  fc.tuple(fc.constantFrom(prefix, `${prefix}_`), encodedId).map(([p, rest]) => `${p}${rest}`);

/** Stands for the test account's id, which exists only once the file's server runs. */
const OWN_ACCOUNT = '<own account>';
/** A cursor as the feed encodes one (base64url JSON), with fields of any value. */
const cursor = fc
  .record(
    {
      // Mostly the account's own, so that the checks after the account's are reached.
      a: fc.oneof(fc.constant(OWN_ACCOUNT), fc.constant(OWN_ACCOUNT), nasty, fc.integer()),
      t: fc.oneof(
        fc.double(),
        fc.integer(),
        fc.constantFrom(1e300, -1, 2 ** 53, 2 ** 63, Number.MAX_VALUE, 0.5),
        nasty,
      ),
      i: fc.oneof(nasty, fc.constantFrom('ntf_\u0000x', 'ntf_ok')),
    },
    { requiredKeys: [] },
  )
  .map((fields) =>
    Buffer.from(JSON.stringify(fields.a === OWN_ACCOUNT ? { ...fields, a: account.id } : fields)).toString(
      'base64url',
    ),
  );

describe('ids, cursors and reports under arbitrary input', () => {
  /** The account's own cursor fields, so the account check is passed and the rest is reached. */
  const ownCursor = (t: string) =>
    Buffer.from(`{"a":${JSON.stringify(account.id)},"t":${t},"i":"ntf_x"}`).toString('base64url');

  it('answers malformed ids 404 and out-of-range cursors 400 on every store, never a 500', async () => {
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const json = { 'content-type': 'application/json' };
    // Each of these was a 500 on PostgreSQL: NUL, invalid UTF-8 and bigint overflow.
    const cases: [Raw, number, string][] = [
      [
        { method: 'GET', path: '/v1/notifications/ntf_%00x/status', headers: bearer(account.token) },
        404,
        'not_found',
      ],
      // A path that is not UTF-8 once decoded is not read at all, as everywhere.
      [
        { method: 'GET', path: '/v1/notifications/ntf_%FFx/status', headers: bearer(account.key) },
        400,
        'invalid_request',
      ],
      [
        {
          method: 'PATCH',
          path: '/v1/devices/dev_%00x',
          headers: { ...bearer(account.key), ...json },
          body: '{}',
        },
        404,
        'not_found',
      ],
      [{ method: 'DELETE', path: '/v1/devices/dev_%00x', headers: bearer(account.key) }, 404, 'not_found'],
      [{ method: 'DELETE', path: '/v1/tokens/tok_%00x', headers: bearer(account.key) }, 404, 'not_found'],
      [
        {
          method: 'POST',
          path: `/v1/notifications/${(await firstNotification()).id}/events`,
          headers: { ...bearer(account.key), ...json },
          body: '{"device_id":"a\\u0000b","action":"opened"}',
        },
        400,
        'invalid_field',
      ],
      [
        { method: 'GET', path: `/v1/inbox?cursor=${ownCursor('1e300')}`, headers: bearer(account.key) },
        400,
        'invalid_field',
      ],
      [
        {
          method: 'GET',
          path: `/v1/inbox?cursor=${ownCursor('9223372036854775808')}`,
          headers: bearer(account.key),
        },
        400,
        'invalid_field',
      ],
    ];
    for (const [raw, status, code] of cases) {
      expect([await check(raw), lastErrorCode], raw.path).toEqual([status, code]);
    }
  });

  it(
    'answers any id in a path with 404 not_found, whichever credential asks',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(
            ['GET', '/v1/notifications/{}/status'],
            ['POST', '/v1/notifications/{}/events'],
            ['PATCH', '/v1/devices/{}'],
            ['DELETE', '/v1/devices/{}'],
            ['DELETE', '/v1/tokens/{}'],
          ),
          fc.constantFrom('token', 'key'),
          fc.oneof(prefixed('ntf'), prefixed('dev'), prefixed('tok')),
          async ([method, template], credential, id) => {
            const token = credential === 'token' ? account.token : account.key;
            const status = await check({
              method,
              path: template.replace('{}', id),
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              // Bodies each route takes, so that an id of the right shape is looked up (and found
              // nowhere) rather than rejected for its body.
              ...(method === 'POST'
                ? { body: '{"device_id":"dev_x","action":"opened"}' }
                : method === 'PATCH'
                  ? { body: '{}' }
                  : {}),
            });
            // A send token on an account route is 403; every other response names nothing found.
            // (and a path that is not UTF-8 once decoded is not read: 400 invalid_request).
            if (lastErrorCode === 'invalid_request') expect(status).toBe(400);
            else if (credential === 'key') expect(status).toBe(404);
            else expect([403, 404]).toContain(status);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers any cursor and any device in a report with a spec error, never a 500',
    async () => {
      const sent = await firstNotification();
      await fc.assert(
        fc.asyncProperty(cursor, fc.oneof(nasty, fc.integer(), fc.constant(null)), async (text, deviceId) => {
          const inbox = await check({
            method: 'GET',
            path: `/v1/inbox?cursor=${text}`,
            headers: { authorization: `Bearer ${account.key}` },
          });
          // 413 for a cursor that takes the request past 16 KB.
          expect([400, 410, 413]).toContain(inbox);
          const report = await check({
            method: 'POST',
            path: `/v1/notifications/${sent.id}/events`,
            headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ device_id: deviceId, action: 'opened' }),
          });
          expect([400, 413]).toContain(report);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );
});

/** A notification of the account, sent once for the file. */
let sentOnce: { id: string } | undefined;
async function firstNotification(): Promise<{ id: string }> {
  if (sentOnce) return sentOnce;
  const reply = await fetch(`${server.url}/v1/notifications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'reported on' }),
  });
  sentOnce = (await reply.json()) as { id: string };
  return sentOnce;
}

/** A P-256 point and a 16-byte secret, so that some subscriptions pass their keys' checks. */
const VALID_P256DH =
  'BFh1KaHJqt65GAG30sbZuYQtOd0K-B0NTY7ZIxFVNB8iqBG1z63tqK79-QacxNytg3EVRIFrr0Kwqn0zlmOVsNA';
const VALID_AUTH = 'dGVzdC1hdXRoLXNlY3JldA';

/** A browser's subscription, whole or in pieces, each piece well-formed or not. */
const webPushValue = fc.oneof(
  value,
  fc.record(
    {
      endpoint: fc.oneof(
        nasty,
        nasty.map((tail) => `https://web.push.apple.com/${tail}`),
        fc.constantFrom(
          'https://web.push.apple.com/ok',
          'HTTPS://WEB.PUSH.APPLE.COM/ok',
          'https://web.push.apple.com:443/ok',
          ' https://web.push.apple.com/ok ',
          'https://web.push.apple.com/\u0000',
          'https://127.0.0.1/x',
          'https://2130706433/x',
          'https://[::1]/x',
          'http://web.push.apple.com/x',
        ),
      ),
      keys: fc.oneof(
        value,
        fc.record({
          p256dh: fc.oneof(nasty, fc.constant(VALID_P256DH)),
          auth: fc.oneof(nasty, fc.constant(VALID_AUTH)),
        }),
      ),
      expirationTime: fc.oneof(fc.constant(null), fc.integer(), nasty),
    },
    { requiredKeys: [] },
  ),
);

/** The person's side's fields, with values of any kind: a Web Push subscription, a device id, a code. */
const personFields = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'device_id',
      'name',
      'platform',
      'in_auto',
      'push_token',
      'web_push',
      'source',
      'source_in_use',
      'code',
      'account_key',
      'kind',
      'scenes',
      'expires_at',
      'default_target',
    ),
    fc.string({ maxLength: 8 }),
  ),
  fc.oneof(
    value,
    webPushValue,
    fc.constantFrom(
      'ios',
      'watchos',
      'visionos',
      'refuse',
      'leave',
      'ABCD-EFGH',
      'install-0001',
      'a'.repeat(64),
    ),
  ),
  { maxKeys: 7 },
);

describe("the person's routes under arbitrary bodies", () => {
  it(
    'link requests, devices, the device itself, approvals, merges and tokens answer a spec error or success, never a 500',
    async () => {
      // A device key of the account: its link request approved, its key taken by its first poll.
      const link = await fetch(`${server.url}/v1/link-requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          device_id: 'fuzzed-app-0001',
          name: 'Fuzzed',
          platform: 'ios',
          push_token: 'f'.repeat(64),
        }),
      }).then((reply) => reply.json() as Promise<{ id: string; code: string; secret: string }>);
      await fetch(`${server.url}/v1/link-approvals`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: link.code }),
      });
      const { device_key: deviceKey } = (await fetch(`${server.url}/v1/link-requests/${link.id}`, {
        headers: { authorization: `Bearer ${link.secret}` },
      }).then((reply) => reply.json())) as { device_key: string };
      expect(deviceKey).toMatch(/^fox_dev_/);
      const routes = [
        ['POST', '/v1/link-requests', undefined],
        ['POST', '/v1/devices', account.key],
        ['PATCH', '/v1/device', deviceKey],
        ['POST', '/v1/link-approvals', deviceKey],
        ['POST', '/v1/link-approvals', account.key],
        ['POST', '/v1/account/merge', account.key],
        ['POST', '/v1/tokens', account.key],
      ] as const;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes),
          fc.oneof(
            personFields.map((fields) => JSON.stringify(fields)),
            fc.uint8Array({ maxLength: 200 }),
            fc.string({ maxLength: 100 }),
          ),
          async ([method, path, credential], payload) => {
            await check(
              {
                method,
                path,
                headers: {
                  'content-type': 'application/json',
                  ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }),
                },
                body: payload,
              },
              [200, 201],
            );
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );
});
