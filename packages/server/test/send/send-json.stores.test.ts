import { FIELD_CASES } from '@foxbell/test-support/field-cases';
import { describe, expect, it } from 'vitest';
import { createAccount, expectError, FOREIGN_TOKEN, serverForAll } from '../helpers.js';

describe('POST /v1/notifications', () => {
  // Every test sends with an account of its own, and none moves the clock.
  const shared = serverForAll();

  it('accepts a send with 202, the send response and every header', async () => {
    const server = shared();
    const { token } = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      token,
      json: { message: 'Build passed', scene: 'rocket', scene_params: { color: 'green' } },
    });
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^ntf_[A-Za-z0-9]{22}$/),
      status: 'accepted',
      request_id: reply.headers.get('x-request-id'),
    });
    expect(reply.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{22}$/);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('9999');
    // 2026-12-01T00:00:00Z: the end of the test clock's UTC month.
    expect(reply.headers.get('x-ratelimit-reset')).toBe('1796083200');
  });

  it('stores the validated notification with its defaults and queues it', async () => {
    const server = shared();
    const { token } = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      token,
      json: { text: 'hi', level: 2 },
    });
    const stored = await server.store.getNotification(reply.body.id);
    expect(stored?.notification).toEqual({
      message: 'hi',
      scene: 'notice',
      scene_version: 1,
      scene_params: {},
      bell_color: 'gold',
      level: 'time-sensitive',
      sound: 'default',
      ttl: 86_400,
      target: 'auto',
    });
    expect(stored?.senderName).toBe('Sender');
    expect(stored?.expiresAt).toBe(server.clock.now() + 86_400_000);
  });

  describe('every field rule, at its boundary and one past it', () => {
    it.each(FIELD_CASES)('%s', async (_name, fields, sdkExpected, serverExpected) => {
      const server = shared();
      const { token } = await createAccount(server);
      const expected = serverExpected ?? sdkExpected;
      const reply = await server.request('POST', '/v1/notifications', { token, json: fields });
      if (expected === 'sent') expect(reply.status, reply.text).toBe(202);
      else expectError(reply, 400, expected.code, expected.field);
    });
  });

  it.each([
    ['an array', '[]'],
    ['a string', '"hi"'],
    ['null', 'null'],
    ['a number', '5'],
    ['invalid JSON', '{"message": "hi"'],
    ['a trailing comma', '{"message": "hi",}'],
    ['an empty body', ''],
  ])('rejects %s as the body with 400 invalid_request', async (_name, body) => {
    const server = shared();
    const { token } = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      token,
      body,
      contentType: 'application/json',
    });
    expectError(reply, 400, 'invalid_request');
  });

  it('rejects a body that is not valid UTF-8 with 400 invalid_request', async () => {
    const server = shared();
    const { token } = await createAccount(server);
    const body = Buffer.concat([Buffer.from('{"message":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const reply = await server.request('POST', '/v1/notifications', {
      token,
      body,
      contentType: 'application/json',
    });
    expectError(reply, 400, 'invalid_request');
  });

  it('takes 16 levels of nesting and rejects 17 with invalid_request', async () => {
    const server = shared();
    const { token } = await createAccount(server);
    const nested = (depth: number) => `{"message":"hi","x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    // The deepest allowed body is still an unknown field `x`; one level more is a bad request.
    expectError(
      await server.request('POST', '/v1/notifications', {
        token,
        body: nested(16),
        contentType: 'application/json',
      }),
      400,
      'invalid_field',
      'x',
    );
    expectError(
      await server.request('POST', '/v1/notifications', {
        token,
        body: nested(17),
        contentType: 'application/json',
      }),
      400,
      'invalid_request',
    );
    const deep = `{"message":"hi","x":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    expectError(
      await server.request('POST', '/v1/notifications', {
        token,
        body: deep,
        contentType: 'application/json',
      }),
      400,
      'invalid_request',
    );
  });

  it('rejects a repeated member with a different value and takes it with the same value', async () => {
    const server = shared();
    const { token } = await createAccount(server);
    const post = (body: string) =>
      server.request('POST', '/v1/notifications', { token, body, contentType: 'application/json' });
    expectError(await post('{"message":"a","title":"x","title":"y"}'), 400, 'conflicting_field', 'title');
    expect((await post('{"message":"a","title":"x","title":"x"}')).status).toBe(202);
    expectError(
      await post('{"message":"a","scene":"rocket","scene_params":{"color":"red","color":"blue"}}'),
      400,
      'conflicting_field',
      'scene_params.color',
    );
    expect(
      (await post('{"message":"a","scene":"rocket","scene_params":{"color":"red","color":"red"}}')).status,
    ).toBe(202);
    // A repeat hidden by an escape is still the same member name.
    expectError(await post('{"message":"a","messag\\u0065":"b"}'), 400, 'conflicting_field', 'message');
    // Colons inside strings are not members.
    expect((await post('{"message":"a:b:c","title":"{:}"}')).status).toBe(202);
  });

  it.each([
    ['text/plain', 'hi'],
    ['application/x-www-form-urlencoded', 'message=hi'],
    ['application/xml', '<message>hi</message>'],
    ['multipart/form-data; boundary=x', '--x--'],
  ])('rejects %s with 415 unsupported_media_type', async (contentType, body) => {
    const server = shared();
    const { token } = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', { token, body, contentType });
    expectError(reply, 415, 'unsupported_media_type');
    expect(reply.headers.get('x-ratelimit-limit')).toBe('10000');
  });

  it('takes JSON with a charset parameter', async () => {
    const server = shared();
    const { token } = await createAccount(server);
    const reply = await server.request('POST', '/v1/notifications', {
      token,
      body: '{"message":"hi"}',
      contentType: 'application/json; charset=utf-8',
    });
    expect(reply.status).toBe(202);
  });

  describe('the 16 KB request limit', () => {
    /** A send whose request line, headers and body come to exactly `total` bytes. */
    async function sendOfSize(total: number) {
      const server = shared();
      const { token } = await createAccount(server);
      const probe = { message: 'x', title: '' };
      const url = new URL(server.url);
      const head = (bodyLength: number) =>
        [
          'POST /v1/notifications HTTP/1.1',
          `host: ${url.host}`,
          'connection: keep-alive',
          `authorization: Bearer ${token}`,
          'content-type: application/json',
          'accept: */*',
          'accept-language: *',
          'sec-fetch-mode: cors',
          'user-agent: node',
          'accept-encoding: gzip, deflate',
          `content-length: ${bodyLength}`,
        ].join('\r\n').length + 4;
      // The title grows the body until the whole request is `total` bytes.
      let body = JSON.stringify(probe);
      const pad = total - head(body.length) - body.length;
      probe.title = 't'.repeat(Math.max(0, Math.min(pad, 250)));
      (probe as Record<string, unknown>).subtitle = 's'.repeat(
        Math.max(0, Math.min(pad - probe.title.length, 250)),
      );
      body = JSON.stringify({ ...probe, message: 'm'.repeat(1) });
      const rest = total - head(body.length) - body.length;
      body = JSON.stringify({ ...probe, message: 'm'.repeat(1 + rest) });
      // Adjust once more: the content-length header may have gained a digit.
      const finalRest = total - head(body.length) - body.length;
      body = JSON.stringify({ ...probe, message: 'm'.repeat(1 + rest + finalRest) });
      expect(head(body.length) + body.length).toBe(total);
      return server.request('POST', '/v1/notifications', {
        token,
        body,
        contentType: 'application/json',
        headers: {
          accept: '*/*',
          'accept-language': '*',
          'sec-fetch-mode': 'cors',
          'user-agent': 'node',
          'accept-encoding': 'gzip, deflate',
        },
      });
    }

    it('takes a request of exactly 16,384 bytes', async () => {
      const reply = await sendOfSize(16_384);
      // The message is then over 4,000 bytes: the request size is fine, the field is not.
      expectError(reply, 400, 'invalid_field', 'message');
    });

    it('rejects 16,385 bytes with 413 payload_too_large', async () => {
      expectError(await sendOfSize(16_385), 413, 'payload_too_large');
    });

    it('rejects a large declared body without reading it', async () => {
      const server = shared();
      const { token } = await createAccount(server);
      const reply = await server.request('POST', '/v1/notifications', {
        token,
        body: 'x'.repeat(1_000_000),
        contentType: 'application/json',
      });
      expectError(reply, 413, 'payload_too_large');
    });

    it('rejects a chunked body that goes over the limit', async () => {
      const server = shared();
      const { token } = await createAccount(server);
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1000)));
          controller.close();
        },
      });
      const response = await fetch(`${server.url}/v1/notifications`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: chunks,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(413);
      expect((await response.json()).error.code).toBe('payload_too_large');
    });

    it('answers oversized headers with the 413 error body, not a bare 431', async () => {
      const server = shared();
      const reply = await server.request('GET', '/v1/scenes', {
        token: FOREIGN_TOKEN,
        headers: { 'x-padding': 'p'.repeat(20_000) },
      });
      expect(reply.status).toBe(413);
      expect(reply.body.error.code).toBe('payload_too_large');
      expect(reply.body.request_id).toBe(reply.headers.get('x-request-id'));
    });

    it('counts the query string', async () => {
      const server = shared();
      const { token } = await createAccount(server);
      const reply = await server.request('POST', `/v1/notifications?pad=${'q'.repeat(16_400)}`, {
        token,
        json: { message: 'hi' },
      });
      expectError(reply, 413, 'payload_too_large');
    });
  });
});
