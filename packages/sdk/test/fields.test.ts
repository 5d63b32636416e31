import { bytes, FIELD_CASES, paramsOfBytes, urlOfBytes } from '@foxbell/test-support/field-cases';
import { describe, expect, it } from 'vitest';
import { type SendFields, ValidationError } from '../src/index.js';
import { accepted, client, serve, useMockService } from './helpers.js';

useMockService();

describe('every field rule is enforced before a request leaves', () => {
  it.each(FIELD_CASES)('%s', async (_name, fields, expected) => {
    const requests = serve('post', '/v1/notifications', accepted);
    const sending = client().send(fields as SendFields);
    if (expected === 'sent') {
      await expect(sending).resolves.toMatchObject({ id: 'ntf_abc123', status: 'accepted' });
      expect(requests).toHaveLength(1);
    } else {
      const error = await sending.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      expect({ code: (error as ValidationError).code, field: (error as ValidationError).field }).toEqual(
        expected,
      );
      expect(requests).toHaveLength(0);
    }
  });
});

describe('the Idempotency-Key rule', () => {
  it.each([
    ['1 character', 'k', true],
    ['255 characters', 'k'.repeat(255), true],
    ['a space inside', 'build 42', true],
    ['every printable character', '!"#$%&\'()*+,-./0-9:;<=>?@A-Z[\\]^_`a-z{|}~', true],
    ['empty', '', false],
    ['256 characters', 'k'.repeat(256), false],
    ['non-ASCII', 'clé', false],
    ['a control character', 'a\u007fb', false],
    ['a leading space (HTTP would trim it)', ' key', false],
    ['a trailing space', 'key ', false],
  ])('%s', async (_name, idempotencyKey, valid) => {
    const requests = serve('post', '/v1/notifications', accepted);
    const sending = client().send({ message: 'hi' }, { idempotencyKey });
    if (valid) {
      await sending;
      expect(requests[0]?.headers['idempotency-key']).toBe(idempotencyKey);
    } else {
      await expect(sending).rejects.toMatchObject({ code: 'invalid_field', field: 'Idempotency-Key' });
      expect(requests).toHaveLength(0);
    }
  });
});

describe('the 16 KB request budget', () => {
  it('sends a request with every field at its limit', async () => {
    const requests = serve('post', '/v1/notifications', accepted);
    await client().send({
      message: bytes(4000),
      title: bytes(250),
      subtitle: bytes(250),
      scene: 'x-new',
      scene_params: paramsOfBytes(2048),
      url: urlOfBytes(2048),
      url_title: bytes(64),
      image: urlOfBytes(2048),
      group: bytes(64),
      tag: bytes(64),
      target: bytes(64),
    });
    expect(requests).toHaveLength(1);
  });

  it('rejects with payload_too_large when escaping pushes the request past 16 KB', async () => {
    const prefix = `/proxy/${'p'.repeat(100)}`;
    const requests = serve('post', `${prefix}/v1/notifications`, accepted);
    // Every quote becomes two bytes in JSON: 4,000 quotes are 8,000 bytes on the wire.
    const quotes = (n: number) => '"'.repeat(n);
    const sending = client({ baseUrl: `https://foxbell.test${prefix}` }).send(
      {
        message: quotes(4000),
        title: quotes(250),
        subtitle: quotes(250),
        scene: 'x-new',
        scene_params: paramsOfBytes(2048),
        url: urlOfBytes(2048),
        url_title: quotes(64),
        image: urlOfBytes(2048),
        group: quotes(64),
        tag: bytes(64),
        target: quotes(64),
      },
      { idempotencyKey: 'k'.repeat(255) },
    );
    await expect(sending).rejects.toMatchObject({ name: 'ValidationError', code: 'payload_too_large' });
    expect(requests).toHaveLength(0);
  });

  it('counts the base URL path as part of the request line', async () => {
    const requests = serve('post', `/${'p'.repeat(16_000)}/v1/notifications`, accepted);
    const long = client({ baseUrl: `https://foxbell.test/${'p'.repeat(16_000)}` });
    await expect(long.send({ message: 'hi' })).rejects.toMatchObject({ code: 'payload_too_large' });
    expect(requests).toHaveLength(0);
  });
});
