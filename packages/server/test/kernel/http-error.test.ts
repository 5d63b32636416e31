import { describe, expect, it } from 'vitest';
import { errorBody, HttpError, valueOrThrow } from '../../src/kernel/http-error.js';

describe('HttpError: an error as data', () => {
  it("takes its status from the contract's code table, never from the thrower", () => {
    const error = new HttpError('rate_limited', 'slow down', { headers: { 'retry-after': '3' } });
    expect([error.status, error.code, error.headers, error.field, error.details]).toEqual([
      429,
      'rate_limited',
      { 'retry-after': '3' },
      undefined,
      undefined,
    ]);
    expect(new HttpError('not_found', 'no such thing').status).toBe(404);
    expect(new HttpError('service_unavailable', 'later').headers).toEqual({});
  });

  it("carries a field check's error whole, and passes a value that checked", () => {
    const refusal = {
      code: 'invalid_field',
      message: 'must be 1 to 64 bytes',
      field: 'name',
      details: { max: 64 },
    } as const;
    expect(() => valueOrThrow({ ok: false, error: refusal })).toThrow(
      expect.objectContaining({ code: 'invalid_field', status: 400, field: 'name', details: { max: 64 } }),
    );
    expect(valueOrThrow({ ok: true, value: 7 })).toBe(7);
  });

  it("writes the spec's error body, with field and details only when there are some", () => {
    expect(errorBody('not_found', 'gone', 'req_1')).toEqual({
      error: { code: 'not_found', message: 'gone' },
      request_id: 'req_1',
    });
    expect(errorBody('invalid_field', 'bad', 'req_2', 'title', { max: 250 })).toEqual({
      error: { code: 'invalid_field', message: 'bad', field: 'title', details: { max: 250 } },
      request_id: 'req_2',
    });
  });
});
