import { describe, expect, it } from 'vitest';
import {
  ProviderTokenSource,
  publicKeyOf,
  verifyProviderToken,
} from '../../../src/delivery/apns/provider-token.js';
import { MAX_PAYLOAD_BYTES, pushRequestFor } from '../../../src/delivery/apns/push-request.js';
import { type ApnsVerdict, judgeApnsResponse } from '../../../src/delivery/apns/responses.js';
import { endOfAttempt, retryDelayMs } from '../../../src/delivery/attempts.js';
import { NO_RESPONSE } from '../../../src/delivery/transport.js';
import type { ClaimedDestination } from '../../../src/model/leases.js';
import { ManualClock } from '../../helpers.js';
import { PROVIDER_KEY, TOPICS } from '../../simulated-apns.js';

const TOKEN_SINCE = 1_000_000;
type Meaning = Omit<ApnsVerdict, 'status' | 'reason'>;
const v = (verdict: ApnsVerdict['verdict'], extra: Partial<Meaning> = {}): Meaning => ({
  verdict,
  deactivateDevice: null,
  renewToken: false,
  pauseCredential: false,
  ...extra,
});

describe("what each of Apple's responses does", () => {
  const table: [number, string | undefined, Meaning][] = [
    [200, undefined, v('accepted')],
    [400, 'BadCollapseId', v('failed_permanent', { failure: 'refused' })],
    [400, 'BadDeviceToken', v('failed_permanent', { failure: 'refused' })],
    [400, 'BadExpirationDate', v('failed_permanent', { failure: 'refused' })],
    [400, 'BadMessageId', v('failed_permanent', { failure: 'refused' })],
    [400, 'BadPriority', v('failed_permanent', { failure: 'refused' })],
    [400, 'BadTopic', v('failed_permanent', { failure: 'refused' })],
    [400, 'DeviceTokenNotForTopic', v('failed_permanent', { failure: 'refused' })],
    [400, 'DuplicateHeaders', v('failed_permanent', { failure: 'refused' })],
    [400, 'IdleTimeout', v('failed_permanent', { failure: 'refused' })],
    [400, 'InvalidPushType', v('failed_permanent', { failure: 'refused' })],
    [400, 'MissingDeviceToken', v('failed_permanent', { failure: 'refused' })],
    [400, 'MissingTopic', v('failed_permanent', { failure: 'refused' })],
    [400, 'PayloadEmpty', v('failed_permanent', { failure: 'refused' })],
    [400, 'TopicDisallowed', v('failed_permanent', { failure: 'refused' })],
    [403, 'BadCertificate', v('failed_permanent', { failure: 'refused', pauseCredential: true })],
    [403, 'BadCertificateEnvironment', v('failed_permanent', { failure: 'refused', pauseCredential: true })],
    [403, 'ExpiredProviderToken', v('retry', { renewToken: true })],
    [403, 'Forbidden', v('failed_permanent', { failure: 'refused', pauseCredential: true })],
    [403, 'InvalidProviderToken', v('failed_permanent', { failure: 'refused', pauseCredential: true })],
    [403, 'MissingProviderToken', v('failed_permanent', { failure: 'refused', pauseCredential: true })],
    [403, 'UnrelatedKeyIdInToken', v('failed_permanent', { failure: 'refused', pauseCredential: true })],
    [403, 'BadEnvironmentKeyInToken', v('failed_permanent', { failure: 'refused', pauseCredential: true })],
    [404, 'BadPath', v('failed_permanent', { failure: 'refused' })],
    [405, 'MethodNotAllowed', v('failed_permanent', { failure: 'refused' })],
    [413, 'PayloadTooLarge', v('failed_permanent', { failure: 'refused' })],
    [429, 'TooManyProviderTokenUpdates', v('retry')],
    [429, 'TooManyRequests', v('retry')],
    [500, 'InternalServerError', v('retry')],
    [502, undefined, v('retry')],
    [503, 'ServiceUnavailable', v('retry')],
    [503, 'Shutdown', v('retry')],
    [418, undefined, v('failed_permanent', { failure: 'refused' })],
  ];
  it.each(table)('%i %s', (status, reason, meaning) => {
    expect(judgeApnsResponse({ status, reason }, TOKEN_SINCE)).toEqual({ ...meaning, status, reason });
  });

  it('is gone on 410, and deactivates (unregistered) only when the push token is older than the 410 timestamp', () => {
    const gone = (timestamp?: number, reason = 'Unregistered') =>
      judgeApnsResponse({ status: 410, reason, timestamp }, TOKEN_SINCE);
    const answer = (reason: string, deactivate: boolean) => ({
      ...v('failed_permanent', { failure: 'gone', deactivateDevice: deactivate ? 'unregistered' : null }),
      status: 410,
      reason,
    });
    expect(gone(TOKEN_SINCE + 1)).toEqual(answer('Unregistered', true));
    expect(gone(TOKEN_SINCE)).toEqual(answer('Unregistered', false));
    expect(gone(TOKEN_SINCE - 1)).toEqual(answer('Unregistered', false));
    expect(gone(undefined)).toEqual(answer('Unregistered', true));
    expect(gone(TOKEN_SINCE + 1, 'ExpiredToken')).toEqual(answer('ExpiredToken', true));
  });
});

function claimed(
  overrides: Partial<ClaimedDestination['notification']> = {},
  attempt = 1,
): ClaimedDestination {
  return {
    notificationId: 'ntf_1',
    deviceId: 'dev_1',
    platform: 'ios',
    address: { provider: 'apns', key: 'ab'.repeat(32), data: null },
    addressSince: 0,
    pushId: '00000000-0000-4000-8000-000000000000',
    attempt,
    unread: null,
    senderName: 'CI',
    notification: {
      message: 'hello',
      scene: 'notice',
      scene_version: 1,
      scene_params: {},
      bell_color: 'gold',
      level: 'active',
      sound: 'default',
      ttl: 60,
      target: 'auto',
      ...overrides,
    },
    createdAt: 0,
    expiresAt: 60_000,
  };
}

describe('the wait between attempts', () => {
  it('is 2, 4, 8 and 16 seconds, and the fifth attempt is the last', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([2000, 4000, 8000, 16_000]);
    expect(endOfAttempt(claimed({}, 4), NO_RESPONSE, 100)).toEqual({
      kind: 'retry',
      pushStatus: null,
      nextAttemptAt: 16_100,
    });
    expect(endOfAttempt(claimed({}, 5), NO_RESPONSE, 100)).toEqual({
      kind: 'failed_permanent',
      pushStatus: null,
      reason: 'attempts_exhausted',
      deactivateDevice: null,
    });
  });
});

describe('the push payload', () => {
  it('stays within 4 KB however long each field is: the message is shortened, then the image left out', () => {
    const request = pushRequestFor(
      claimed({
        message: `"\\\t${'ü'.repeat(1998)}`,
        title: '\n'.repeat(250),
        subtitle: '"'.repeat(250),
        url: `https://example.com/${'u'.repeat(2000)}`,
        url_title: 'x'.repeat(64),
        image: `https://example.com/${'i'.repeat(2000)}`,
        group: 'g'.repeat(64),
        scene: 'rocket',
        scene_params: { color: 'red', countdown: 3 },
      }),
      TOPICS,
    );
    expect(Buffer.byteLength(request.payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const payload = JSON.parse(request.payload);
    expect(payload.foxbell.truncated).toBe(true);
    expect(payload.foxbell.image).toBeUndefined();
    expect(payload.foxbell.url).toBe(`https://example.com/${'u'.repeat(2000)}`);
    expect(payload.aps.alert.body.startsWith('"\\\tüü')).toBe(true);
    expect(payload.aps.alert.body.endsWith('…')).toBe(true);
  });

  it('keeps a message that fits whole, with no truncated mark', () => {
    const message = 'ü'.repeat(1800);
    const payload = JSON.parse(pushRequestFor(claimed({ message }), TOPICS).payload);
    expect(payload.aps.alert.body).toBe(message);
    expect(payload.foxbell.truncated).toBeUndefined();
  });

  it('shortens only as much as needed: one more character would not fit', () => {
    const request = pushRequestFor(claimed({ message: 'a'.repeat(4000), title: 't'.repeat(250) }), TOPICS);
    expect(Buffer.byteLength(request.payload)).toBeGreaterThan(MAX_PAYLOAD_BYTES - 1 - 3);
    expect(Buffer.byteLength(request.payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
  });
});

describe('provider tokens', () => {
  it('are ES256 JWTs with kid, iss and iat that the public key verifies', () => {
    const clock = new ManualClock();
    const source = new ProviderTokenSource(PROVIDER_KEY, clock);
    const claims = verifyProviderToken(source.token(), publicKeyOf(PROVIDER_KEY.privateKeyPem));
    expect(claims).toEqual({ keyId: PROVIDER_KEY.keyId, teamId: PROVIDER_KEY.teamId, issuedAt: clock.now() });
    const [header] = source.token().split('.');
    expect(JSON.parse(Buffer.from(header as string, 'base64url').toString())).toEqual({
      alg: 'ES256',
      kid: PROVIDER_KEY.keyId,
    });
  });

  it('are reused for 50 minutes, then renewed; an early renew is honoured only after 20 minutes', () => {
    const clock = new ManualClock();
    const source = new ProviderTokenSource(PROVIDER_KEY, clock);
    const first = source.token();
    clock.advance(19 * 60_000);
    source.renew();
    expect(source.token()).toBe(first);
    clock.advance(60_000);
    source.renew();
    const second = source.token();
    expect(second).not.toBe(first);
    clock.advance(50 * 60_000 - 1);
    expect(source.token()).toBe(second);
    clock.advance(1);
    expect(source.token()).not.toBe(second);
  });
});
