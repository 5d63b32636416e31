import { delay, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { validateSend } from '../src/contract/index.js';
import {
  ApiError,
  FoxbellError,
  type Logger,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../src/index.js';
import { accepted, client, errorReply, serve, TOKEN, useMockService } from './helpers.js';

useMockService();

const record = {
  id: 'ntf_abc123',
  status: 'sent_to_push',
  destinations: [
    { platform: 'ios', state: 'accepted', push_status: 200, updated_at: '2026-11-25T10:00:00.000Z' },
  ],
  handled: [],
};
const jsonReply = (body: Parameters<typeof HttpResponse.json>[0], requestId: string) => () =>
  HttpResponse.json(body, { headers: { 'x-request-id': requestId, 'x-extra': 'yes' } });

describe('per-call options', () => {
  it('sends a call’s own headers unchanged on every attempt, beside the SDK’s', async () => {
    const seen = serve('post', '/v1/notifications', errorReply(503, 'service_unavailable'), accepted);
    await client().send({ message: 'hi' }, { headers: { 'X-Trace-Id': 'trace-42', 'x-tenant': 'acme' } });
    expect(seen).toHaveLength(2);
    for (const request of seen) {
      expect(request.headers).toMatchObject({
        'x-trace-id': 'trace-42',
        'x-tenant': 'acme',
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
      });
    }
    expect(seen[1]?.headers['idempotency-key']).toBe(seen[0]?.headers['idempotency-key']);
  });

  it('rejects a header the SDK sets, and one HTTP cannot carry, before sending anything', async () => {
    const seen = serve('post', '/v1/notifications', accepted);
    for (const headers of [
      { Authorization: 'Bearer other' },
      { 'Idempotency-Key': 'k' },
      { 'x-bad': 'a\nb' },
    ]) {
      const error = await client()
        .send({ message: 'hi' }, { headers })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(FoxbellError);
      expect((error as FoxbellError).code).toBe('invalid_config');
    }
    expect(seen).toEqual([]);
  });

  it('takes maxRetries per call (0 to 3): 0 makes one attempt', async () => {
    const seen = serve('post', '/v1/notifications', errorReply(503, 'service_unavailable'));
    const error = await client()
      .send({ message: 'hi' }, { maxRetries: 0 })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).attempts).toHaveLength(1);
    expect(seen).toHaveLength(1);
    await expect(client().status('ntf_abc123', { maxRetries: 4 })).rejects.toThrow(
      'maxRetries must be an integer from 0 to 3',
    );
  });

  it('takes timeoutMs per call, for each attempt', async () => {
    serve('get', '/v1/notifications/ntf_abc123/status', async () => {
      await delay(400);
      return jsonReply(record, 'req_slow')();
    });
    const error = await client()
      .status('ntf_abc123', { timeoutMs: 50, maxRetries: 0 })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe('No complete response within 50 ms');
  });
});

describe('withResponse()', () => {
  it('gives every method’s value with the response’s request id, status and headers', async () => {
    serve('post', '/v1/notifications', accepted);
    serve('get', '/v1/notifications/ntf_abc123/status', jsonReply(record, 'req_status'));
    serve('get', '/v1/scenes', jsonReply({ scenes: [] }, 'req_scenes'));
    serve('get', '/v1/devices', jsonReply({ devices: [{ name: 'iPhone', platform: 'ios' }] }, 'req_devices'));
    const foxbell = client();

    const sent = await foxbell.send({ message: 'hi' }).withResponse();
    expect([sent.data.id, sent.requestId, sent.status, sent.headers.get('x-ratelimit-remaining')]).toEqual([
      'ntf_abc123',
      'req_ok1',
      202,
      '9999',
    ]);
    const status = await foxbell.status('ntf_abc123').withResponse();
    expect([status.data.status, status.requestId, status.headers.get('x-extra')]).toEqual([
      'sent_to_push',
      'req_status',
      'yes',
    ]);
    const waited = await foxbell.waitFor('ntf_abc123').withResponse();
    expect([waited.data.status, waited.requestId]).toEqual(['sent_to_push', 'req_status']);
    expect((await foxbell.scenes().withResponse()).requestId).toBe('req_scenes');
    const devices = await foxbell.devices().withResponse();
    expect([devices.data, devices.requestId]).toEqual([[{ name: 'iPhone', platform: 'ios' }], 'req_devices']);
  });

  it('is still a promise: awaited, caught, chained, and one request either way', async () => {
    const seen = serve('get', '/v1/notifications/ntf_abc123/status', jsonReply(record, 'req_status'));
    const pending = client().status('ntf_abc123');
    expect(pending).toBeInstanceOf(Promise);
    const [awaited, withResponse] = await Promise.all([pending, pending.withResponse()]);
    expect(awaited).toEqual(withResponse.data);
    expect(seen).toHaveLength(1);
    expect(await pending.then((value) => value.status)).toBe('sent_to_push');

    serve('get', '/v1/devices', errorReply(403, 'forbidden'));
    expect(
      await client()
        .devices()
        .catch((error: unknown) => (error as ApiError).code),
    ).toBe('forbidden');
    await expect(client().devices().withResponse()).rejects.toBeInstanceOf(ApiError);
  });
});

describe('scenes() reads any catalog', () => {
  it('keeps a catalog laid out differently whole, with no scenes it could type', async () => {
    serve('get', '/v1/scenes', jsonReply({ catalog: { rocket: { v1: {} } }, version: 3 }, 'req_c'));
    expect(await client().scenes()).toEqual({ catalog: { rocket: { v1: {} } }, version: 3, scenes: [] });
  });

  it('types the entries it knows, and keeps the others as they came', async () => {
    const rocket = {
      id: 'rocket',
      name: 'Rocket',
      current_version: 1,
      versions: [{ version: 1, params: {} }],
    };
    serve('get', '/v1/scenes', jsonReply({ scenes: [rocket, { slug: 'laser' }, 'confetti'] }, 'req_c'));
    expect(await client().scenes()).toEqual({
      scenes: [rocket],
      unrecognized_scenes: [{ slug: 'laser' }, 'confetti'],
    });
    // A newer layout, every entry of it: nothing is lost.
    const newer = { id: 'laser', versions: [{ version: 1, schema: { type: 'object' } }] };
    serve('get', '/v1/scenes', jsonReply({ scenes: [newer] }, 'req_c'));
    expect(await client().scenes()).toEqual({ scenes: [], unrecognized_scenes: [newer] });
    // A `scenes` that is not a list, as it came.
    serve('get', '/v1/scenes', jsonReply({ scenes: { rocket: {} } }, 'req_c'));
    expect(await client().scenes()).toEqual({ scenes: { rocket: {} } });
  });

  it('still rejects a response that is not a JSON object', async () => {
    serve('get', '/v1/scenes', jsonReply(['rocket'], 'req_c'));
    await expect(client().scenes()).rejects.toMatchObject({ code: 'invalid_response' });
  });
});

describe('error classes', () => {
  it('relate as JavaScript classes do, and still recognise errors by kind', () => {
    expect(ApiError.prototype instanceof FoxbellError).toBe(true);
    expect(RateLimitError.prototype instanceof ApiError).toBe(true);
    expect(Object.create(RateLimitError.prototype) instanceof FoxbellError).toBe(true);
    expect(ValidationError.prototype instanceof ApiError).toBe(false);
    const validation = new ValidationError({ code: 'invalid_field', message: 'm', field: 'title' });
    expect([validation instanceof FoxbellError, validation instanceof ApiError]).toEqual([true, false]);
    // An error of another copy of the SDK: no shared prototype, the same kinds.
    const foreign = Object.assign(Object.create(Error.prototype), {
      [Symbol.for('foxbell.error.kinds')]: ['RateLimitError', 'ApiError', 'FoxbellError'],
    });
    expect([
      foreign instanceof RateLimitError,
      foreign instanceof ApiError,
      foreign instanceof ServerError,
    ]).toEqual([true, true, false]);
  });
});

describe('validateSend', () => {
  it('needs no second argument: a scene this copy does not know is left to the service', () => {
    expect(validateSend({ message: 'hi', scene: 'laser-show' })).toMatchObject({ ok: true });
    expect(validateSend({ message: 'hi', scene: 'laser-show' }, { unknownScenes: 'reject' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_scene' },
    });
  });
});

describe('logging', () => {
  function recorder() {
    const lines: { level: string; message: string; fields: Record<string, unknown> | undefined }[] = [];
    const at =
      (level: string) =>
      (message: string, fields?: Record<string, unknown>): void => {
        lines.push({ level, message, fields });
      };
    const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
    return { logger, lines };
  }

  it('logs each attempt, its status and request id, and each retry with its wait; never the token or the text', async () => {
    serve(
      'post',
      '/v1/notifications',
      errorReply(503, 'service_unavailable', { 'retry-after': '0' }),
      accepted,
    );
    const { logger, lines } = recorder();
    await client({ logger, logLevel: 'debug' }).send({ message: 'Secret launch codes', title: 'Private' });
    expect(lines.map((line) => `${line.level} ${line.message}`)).toEqual(
      [
        'debug foxbell: POST https://foxbell.test/v1/notifications: attempt 1 of 4',
        'info foxbell: POST https://foxbell.test/v1/notifications: 503 in 0 ms',
        'warn foxbell: POST https://foxbell.test/v1/notifications: retry 1 in 0 ms (server_error)',
        'debug foxbell: POST https://foxbell.test/v1/notifications: attempt 2 of 4',
        'info foxbell: POST https://foxbell.test/v1/notifications: 202 in 0 ms',
      ].map((line) =>
        expect.stringMatching(new RegExp(`^${line.replace(/[()]/g, '\\$&').replace(/ 0 ms/, ' \\d+ ms')}$`)),
      ),
    );
    expect(lines[1]?.fields).toMatchObject({ status: 503, requestId: 'req_service_unavailable', attempt: 1 });
    expect(lines[2]?.fields).toMatchObject({ retry: 1, waitMs: 0, reason: 'server_error' });
    const everything = JSON.stringify(lines);
    for (const secret of [TOKEN, 'Secret launch codes', 'Private']) expect(everything).not.toContain(secret);
  });

  it('logs nothing by default, info and above with a logger, and reads FOXBELL_LOG', async () => {
    serve('get', '/v1/devices', jsonReply({ devices: [] }, 'req_d'));
    const spy = vi.spyOn(console, 'info').mockImplementation(() => {});
    try {
      await client().devices();
      expect(spy).not.toHaveBeenCalled();
      vi.stubEnv('FOXBELL_LOG', 'info');
      await client().devices();
      expect(spy).toHaveBeenCalledWith(
        expect.stringMatching(/^foxbell: GET https:\/\/foxbell\.test\/v1\/devices: 200 in \d+ ms$/),
        expect.objectContaining({ status: 200, requestId: 'req_d' }),
      );
    } finally {
      spy.mockRestore();
      vi.unstubAllEnvs();
    }
    const { logger, lines } = recorder();
    await client({ logger }).devices();
    expect(lines.map((line) => line.level)).toEqual(['info']);
  });
});

it('rejects a base URL with a user name or password, without echoing it', () => {
  const error = (() => {
    try {
      client({ baseUrl: 'https://user:hunter2@foxbell.test' });
    } catch (thrown) {
      return thrown as FoxbellError;
    }
  })();
  expect([error?.code, error?.message]).toEqual([
    'invalid_config',
    'The base URL must not hold a user name or password',
  ]);
});
