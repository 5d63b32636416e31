import { describe, expect, it } from 'vitest';
import { fitPayload } from '../../src/kernel/shorten.js';

/** A payload as the push builders make one: the message and the custom keys, as JSON. */
const builder = (custom: Record<string, unknown>) => (message: string) =>
  JSON.stringify({ message, ...custom });

describe('a payload within a push service’s hard size', () => {
  it('is built whole when it fits, and custom is left alone', () => {
    const custom: Record<string, unknown> = { id: 'ntf_1' };
    const payload = fitPayload(100, 'short', custom, builder(custom), []);
    expect(payload).toBe('{"message":"short","id":"ntf_1"}');
    expect(custom.truncated).toBeUndefined();
  });

  it('shortens the message by whole code points to the byte, counting JSON escapes, and says so', () => {
    const custom: Record<string, unknown> = { id: 'ntf_1' };
    const message = `${'é'.repeat(30)}\n${'😀'.repeat(30)}`;
    for (const max of [60, 61, 62, 80, 97, 120]) {
      const payload = fitPayload(max, message, custom, builder(custom), []);
      expect(Buffer.byteLength(payload), `max ${max}`).toBeLessThanOrEqual(max);
      const parsed = JSON.parse(payload);
      expect(parsed.truncated).toBe(true);
      expect(parsed.message.endsWith('…')).toBe(true);
      // A prefix of whole code points: no half of an emoji or of a two-byte letter.
      expect(message.startsWith(parsed.message.slice(0, -1))).toBe(true);
      expect(parsed.message).not.toMatch(/[\uD800-\uDBFF]…$/);
    }
  });

  it('leaves out the custom keys a group at a time, in order, until the shortened message fits', () => {
    const custom: Record<string, unknown> = {
      id: 'ntf_1',
      scene_params: { text: 'x'.repeat(80) },
      url: 'https://example.com',
    };
    const payload = JSON.parse(
      fitPayload(90, 'a message of some length', custom, builder(custom), [['scene_params'], ['url']]),
    );
    expect(payload.scene_params).toBeUndefined();
    expect(payload.url).toBe('https://example.com');
    expect([payload.id, payload.truncated]).toEqual(['ntf_1', true]);
  });
});
