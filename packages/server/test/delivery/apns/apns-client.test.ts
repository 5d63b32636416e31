import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ApnsClient, type PushResult } from '../../../src/delivery/apns/client.js';
import { signProviderToken } from '../../../src/delivery/apns/provider-token.js';
import { buildSimulatorControl } from '../../../src/simulator/control.js';
import type { ApnsSimulator } from '../../../src/simulator/simulator.js';
import { ManualClock } from '../../helpers.js';
import { PROVIDER_KEY, startSimulator } from '../../simulated-apns.js';

const TOKEN = 'ab'.repeat(32);
const TOPIC = 'app.foxbell.test';

interface RawResponse {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

/** One request to the simulator over a fresh HTTP/2 connection, exactly as given. */
async function raw(
  sim: ApnsSimulator,
  request: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const session = http2.connect(sim.url, { ca: sim.ca as string });
  try {
    return await new Promise<RawResponse>((resolve, reject) => {
      const stream = session.request(
        {
          ':method': request.method ?? 'POST',
          ':path': request.path ?? `/3/device/${TOKEN}`,
          ...request.headers,
        },
        { endStream: false },
      );
      let headers: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        headers = h;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: Number(headers[':status']), headers, body: text ? JSON.parse(text) : undefined });
      });
      stream.on('error', reject);
      stream.end(request.body ?? '{"aps":{"alert":"hi"}}');
    });
  } finally {
    session.close();
  }
}

const privateKey = createPrivateKey(PROVIDER_KEY.privateKeyPem);
const bearer = (clock: ManualClock, issuedAt = clock.now()) =>
  `bearer ${signProviderToken(PROVIDER_KEY, privateKey, issuedAt)}`;

function goodHeaders(clock: ManualClock): Record<string, string> {
  return {
    authorization: bearer(clock),
    'apns-topic': TOPIC,
    'apns-push-type': 'alert',
    'apns-priority': '10',
    'apns-expiration': '0',
    'apns-id': randomUUID(),
  };
}

describe("the APNs simulator's checks, in Apple's order", () => {
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const cases: [string, number, string, (clock: ManualClock) => Parameters<typeof raw>[1]][] = [
    ['GET', 405, 'MethodNotAllowed', (c) => ({ method: 'GET', headers: goodHeaders(c) })],
    ['another path', 404, 'BadPath', (c) => ({ path: `/3/devices/${TOKEN}`, headers: goodHeaders(c) })],
    ['no push token', 400, 'MissingDeviceToken', (c) => ({ path: '/3/device/', headers: goodHeaders(c) })],
    [
      'a push token that is not hex',
      400,
      'BadDeviceToken',
      (c) => ({ path: '/3/device/xyz', headers: goodHeaders(c) }),
    ],
    [
      'an apns-id that is not a UUID',
      400,
      'BadMessageId',
      (c) => ({ headers: { ...goodHeaders(c), 'apns-id': 'nope' } }),
    ],
    ['no apns-topic', 400, 'MissingTopic', (c) => ({ headers: { ...goodHeaders(c), 'apns-topic': '' } })],
    [
      'a collapse id over 64 bytes',
      400,
      'BadCollapseId',
      (c) => ({ headers: { ...goodHeaders(c), 'apns-collapse-id': 'x'.repeat(65) } }),
    ],
    ['priority 7', 400, 'BadPriority', (c) => ({ headers: { ...goodHeaders(c), 'apns-priority': '7' } })],
    [
      'push type "banner"',
      400,
      'InvalidPushType',
      (c) => ({ headers: { ...goodHeaders(c), 'apns-push-type': 'banner' } }),
    ],
    [
      'a date as expiration',
      400,
      'BadExpirationDate',
      (c) => ({ headers: { ...goodHeaders(c), 'apns-expiration': 'tomorrow' } }),
    ],
    [
      'no authorization',
      403,
      'MissingProviderToken',
      (c) => {
        const { authorization: _, ...headers } = goodHeaders(c);
        return { headers };
      },
    ],
    [
      'a token signed by another key',
      403,
      'InvalidProviderToken',
      (c) => ({
        headers: {
          ...goodHeaders(c),
          authorization: `bearer ${signProviderToken(PROVIDER_KEY, otherKey, c.now())}`,
        },
      }),
    ],
    [
      'a token of another team',
      403,
      'InvalidProviderToken',
      (c) => ({
        headers: {
          ...goodHeaders(c),
          authorization: `bearer ${signProviderToken({ ...PROVIDER_KEY, teamId: 'OTHERTEAM1' }, privateKey, c.now())}`,
        },
      }),
    ],
    [
      'a token over an hour old',
      403,
      'ExpiredProviderToken',
      (c) => ({ headers: { ...goodHeaders(c), authorization: bearer(c, c.now() - 3_601_000) } }),
    ],
    ['an empty payload', 400, 'PayloadEmpty', (c) => ({ headers: goodHeaders(c), body: '' })],
    [
      'a payload over 4 KB',
      413,
      'PayloadTooLarge',
      (c) => ({ headers: goodHeaders(c), body: 'x'.repeat(4097) }),
    ],
  ];

  it.each(cases)('answers %s with %i %s', async (_name, status, reason, request) => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    const response = await raw(sim, request(clock));
    expect([response.status, response.body?.reason]).toEqual([status, reason]);
  });

  it('checks the method before the path, the path before the headers, and the token before the payload', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    const response = await raw(sim, { method: 'PUT', path: '/nowhere', headers: {}, body: '' });
    expect(response.body?.reason).toBe('MethodNotAllowed');
    const noToken = await raw(sim, { headers: { 'apns-topic': TOPIC }, body: '' });
    expect([noToken.status, noToken.body?.reason]).toEqual([403, 'MissingProviderToken']);
  });

  it('accepts a valid push with 200, echoes its apns-id, and records it without the authorization header', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    const headers = goodHeaders(clock);
    const response = await raw(sim, { headers, body: '{"aps":{"alert":"hi"}}' });
    expect([response.status, response.headers['apns-id'], response.body]).toEqual([
      200,
      headers['apns-id'],
      undefined,
    ]);
    const { authorization: _, ...kept } = headers;
    expect(sim.received()).toEqual([
      {
        push_token: TOKEN,
        apns_id: headers['apns-id'],
        headers: kept,
        payload: { aps: { alert: 'hi' } },
        status: 200,
        at: new Date(clock.now()).toISOString(),
      },
    ]);
  });

  it('binds a push token to the topic of its first push and responds DeviceTokenNotForTopic for another', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    expect((await raw(sim, { headers: goodHeaders(clock) })).status).toBe(200);
    const other = await raw(sim, { headers: { ...goodHeaders(clock), 'apns-topic': 'app.other' } });
    expect([other.status, other.body?.reason]).toEqual([400, 'DeviceTokenNotForTopic']);
  });

  it('knows only registered push tokens when strict', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock, { strictTokens: true });
    expect((await raw(sim, { headers: goodHeaders(clock) })).body?.reason).toBe('BadDeviceToken');
    sim.registerToken(TOKEN, TOPIC);
    expect((await raw(sim, { headers: goodHeaders(clock) })).status).toBe(200);
  });

  it('responds with 410 Unregistered with the time the token became invalid', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    sim.unregisterToken(TOKEN, clock.now() - 5000);
    const response = await raw(sim, { headers: goodHeaders(clock) });
    expect([response.status, response.body]).toEqual([
      410,
      { reason: 'Unregistered', timestamp: clock.now() - 5000 },
    ]);
  });

  it('allows one stream per connection until it sees a valid provider token, then many', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    const session = http2.connect(sim.url, { ca: sim.ca as string });
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    expect(session.remoteSettings.maxConcurrentStreams).toBe(1);
    const settingsRaised = new Promise((resolve) => session.once('remoteSettings', resolve));
    const stream = session.request({
      ':method': 'POST',
      ':path': `/3/device/${TOKEN}`,
      ...goodHeaders(clock),
    });
    stream.end('{"aps":{}}');
    stream.resume();
    await settingsRaised;
    expect(session.remoteSettings.maxConcurrentStreams).toBe(1000);
    session.close();
  });
});

describe('the HTTP/2 APNs client', () => {
  const request = () => ({
    pushToken: TOKEN,
    headers: { 'apns-topic': TOPIC, 'apns-push-type': 'alert', 'apns-id': randomUUID() },
    payload: '{"aps":{"alert":"hi"}}',
  });

  it('runs many pushes over one connection, within the streams the server allows', async () => {
    const clock = new ManualClock();
    const { sim, client } = await startSimulator(clock);
    const results = await Promise.all(Array.from({ length: 200 }, () => client.push(request())));
    expect(results.every((result) => result.kind === 'response' && result.status === 200)).toBe(true);
    expect(sim.counts()).toEqual({ received: 200, by_status: { '200': 200 } });
    expect(sim.connections).toBe(1);
  });

  it("returns Apple's status, reason and 410 timestamp without retrying anything itself", async () => {
    const clock = new ManualClock();
    const { sim, client } = await startSimulator(clock);
    sim.script(TOKEN, [
      { status: 429, reason: 'TooManyRequests' },
      { status: 410, reason: 'Unregistered', timestamp: 1234 },
    ]);
    const first = await client.push(request());
    const second = await client.push(request());
    expect(first).toMatchObject({ kind: 'response', status: 429, reason: 'TooManyRequests' });
    expect(second).toMatchObject({ kind: 'response', status: 410, reason: 'Unregistered', timestamp: 1234 });
    expect(sim.received()).toHaveLength(2);
  });

  it('sends a stream rejected by a GOAWAY again on a new connection, as one push', async () => {
    const clock = new ManualClock();
    const { sim, client } = await startSimulator(clock);
    expect((await client.push(request())).kind).toBe('response');
    sim.script(TOKEN, [{ goaway: true }]);
    const push = request();
    const result = await client.push(push);
    expect(result).toMatchObject({ kind: 'response', status: 200, apnsId: push.headers['apns-id'] });
    expect(sim.received().map((p) => [p.status, p.reason])).toEqual([
      [200, undefined],
      [0, 'goaway'],
      [200, undefined],
    ]);
  });

  it('reconnects after a GOAWAY sent on demand', async () => {
    const clock = new ManualClock();
    const { sim, client } = await startSimulator(clock);
    await client.push(request());
    sim.goaway();
    // Whether the GOAWAY has arrived or not when these go out, each gets a response: on the old
    // connection, on a new one, or rejected by the old and sent again on a new one.
    const results = await Promise.all([client.push(request()), client.push(request())]);
    expect(results.map((r) => r.kind === 'response' && r.status)).toEqual([200, 200]);
  });

  it('reports no response when the stream is reset or the server cannot be reached', async () => {
    const clock = new ManualClock();
    const { sim, client } = await startSimulator(clock);
    sim.script(TOKEN, [{ reset: true }]);
    expect((await client.push(request())).kind).toBe('no_response');
    await sim.close();
    expect((await client.push(request())).kind).toBe('no_response');
  });

  it('gives up a push with no response once its timeout has passed by its clock, and keeps the connection', async () => {
    const clock = new ManualClock();
    const { sim } = await startSimulator(clock);
    let sweeps: (() => void)[] = [];
    const nextSweep = () => new Promise<void>((resolve) => sweeps.push(resolve));
    const client = new ApnsClient({
      url: sim.url,
      ca: sim.ca,
      key: PROVIDER_KEY,
      clock,
      requestTimeoutMs: 1000,
      onSweep: () => {
        for (const resolve of sweeps) resolve();
        sweeps = [];
      },
    });
    try {
      expect((await client.push(request())).kind).toBe('response');
      sim.script(TOKEN, [{ status: 200, delay_ms: 5000 }]);
      let result: PushResult | undefined;
      const late = client.push(request()).then((response) => {
        result = response;
        return response;
      });
      // The push is due by the clock, not before: sweeps that run before it is due leave it.
      await nextSweep();
      clock.advance(999);
      await nextSweep();
      await nextSweep();
      expect(result).toBeUndefined();
      clock.advance(1);
      expect(await late).toEqual({ kind: 'no_response', error: 'timed out' });
      expect(await client.push(request())).toMatchObject({ kind: 'response', status: 200 });
      expect(sim.connections).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('reads a response with a body to its end whatever its status, and keeps at most 4 KiB of it', async () => {
    // Apple's 200 has no body, but a proxy or a future APNs might send one: the push must still
    // settle with a response at once, not hang until its timeout and be sent again.
    /** Apple's error body for `BadDeviceToken`, padded to exactly `bytes` long. */
    const errorBody = (bytes: number) => {
      const bare = JSON.stringify({ reason: 'BadDeviceToken', padding: '' });
      return JSON.stringify({ reason: 'BadDeviceToken', padding: 'x'.repeat(bytes - bare.length) });
    };
    // The push token says how long a 400's body is.
    const bodyBytes: Record<string, number> = {
      ['cd'.repeat(32)]: 4096,
      ['ef'.repeat(32)]: 4097,
      ['01'.repeat(32)]: 1 << 20,
    };
    const server = http2.createServer();
    server.on('stream', (stream, headers) => {
      stream.on('data', () => {});
      stream.on('end', () => {
        const pushToken = String(headers[':path']).slice('/3/device/'.length);
        if (pushToken === TOKEN) {
          stream.respond({ ':status': 200, 'apns-id': 'id-1' });
          stream.end('{"note":"a body on a 200"}');
        } else {
          stream.respond({ ':status': 400 });
          stream.end(errorBody(bodyBytes[pushToken] as number));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = new ApnsClient({
      url: `http://127.0.0.1:${port}`,
      key: PROVIDER_KEY,
      clock: new ManualClock(),
    });
    try {
      expect(await client.push(request())).toEqual({ kind: 'response', status: 200, apnsId: 'id-1' });
      // 4 KiB is kept and read; a byte more, or a megabyte (many DATA frames), is read and dropped.
      expect(await client.push({ ...request(), pushToken: 'cd'.repeat(32) })).toEqual({
        kind: 'response',
        status: 400,
        reason: 'BadDeviceToken',
      });
      for (const pushToken of ['ef'.repeat(32), '01'.repeat(32)]) {
        expect(await client.push({ ...request(), pushToken })).toEqual({ kind: 'response', status: 400 });
      }
    } finally {
      await client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('sends the simulator the same requests as @parse/node-apn for the same notification', async () => {
    // node-apn signs its tokens with the real time.
    const clock = new ManualClock(Date.now());
    const { sim, client } = await startSimulator(clock);
    const apn = createRequire(import.meta.url)('@parse/node-apn');
    const provider = new apn.Provider({
      token: { key: PROVIDER_KEY.privateKeyPem, keyId: PROVIDER_KEY.keyId, teamId: PROVIDER_KEY.teamId },
      address: '127.0.0.1',
      port: Number(new URL(sim.url).port),
      ca: sim.ca,
      production: true,
      connectionRetryLimit: 0,
    });
    const push = {
      pushToken: TOKEN,
      headers: {
        'apns-push-type': 'alert',
        'apns-topic': TOPIC,
        'apns-priority': '5',
        'apns-expiration': '1795000000',
        'apns-id': randomUUID(),
        'apns-collapse-id': 'build',
      },
      payload: '{"aps":{"alert":{"title":"T","body":"B"},"thread-id":"g"},"foxbell":{"id":"ntf_1"}}',
    };
    await client.push(push);
    const note = new apn.Notification();
    note.rawPayload = JSON.parse(push.payload);
    note.pushType = 'alert';
    note.topic = TOPIC;
    note.priority = 5;
    note.expiry = 1795000000;
    note.id = push.headers['apns-id'];
    note.collapseId = 'build';
    const sent = await provider.send(note, TOKEN);
    await provider.shutdown();
    expect(sent.failed).toEqual([]);
    const [ours, theirs] = sim.received();
    expect(ours?.headers).toEqual(theirs?.headers);
    expect(ours?.payload).toEqual(theirs?.payload);
  });
});

describe("the simulator's control API", () => {
  it('lists pushes, scripts answers, registers and unregisters tokens, and sends GOAWAY over HTTP/1.1 JSON', async () => {
    const clock = new ManualClock();
    const { sim, client } = await startSimulator(clock);
    const control = buildSimulatorControl(sim);
    const base = await control.listen({ port: 0, host: '127.0.0.1' });
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method,
          ...(body === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      };
      expect(
        await call('POST', `/v1/tokens/${TOKEN}/script`, {
          answers: [{ status: 503, reason: 'ServiceUnavailable' }],
        }),
      ).toEqual({
        status: 204,
        body: undefined,
      });
      const push = { pushToken: TOKEN, headers: { 'apns-topic': TOPIC }, payload: '{"aps":{}}' };
      expect(await client.push(push)).toMatchObject({ status: 503, reason: 'ServiceUnavailable' });
      expect(await client.push(push)).toMatchObject({ status: 200 });
      const listed = await call('GET', `/v1/pushes?push_token=${TOKEN}`);
      expect(listed.body.pushes.map((p: { status: number }) => p.status)).toEqual([503, 200]);
      expect((await call('POST', `/v1/tokens/${TOKEN}/unregister`, {})).status).toBe(204);
      expect(await client.push(push)).toMatchObject({ status: 410, reason: 'Unregistered' });
      expect((await call('PUT', `/v1/tokens/${TOKEN}`, { topic: TOPIC })).status).toBe(204);
      expect(await client.push(push)).toMatchObject({ status: 200 });
      expect((await call('POST', '/v1/goaway')).status).toBe(204);
      expect((await call('DELETE', '/v1/pushes')).status).toBe(204);
      expect((await call('GET', '/v1/pushes')).body).toEqual({
        pushes: [],
        counts: { received: 0, by_status: {} },
      });
      expect((await call('POST', `/v1/tokens/${TOKEN}/script`, { answers: [{ status: 'x' }] })).status).toBe(
        400,
      );
      expect((await call('POST', '/v1/tokens/nothex/script', { answers: [{}] })).status).toBe(400);
    } finally {
      await control.close();
    }
  });
});
