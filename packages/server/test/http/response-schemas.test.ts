import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { describedProviders } from '../../src/delivery/providers.js';
import { registerResponseSchemas } from '../../src/http/hooks/response-schemas.js';
import {
  deviceSchema,
  deviceView,
  inboxItemSchema,
  inboxItemView,
  newTokenSchema,
  statusRecordSchema,
  statusRecordView,
  tokenSchema,
  tokenView,
} from '../../src/http/views.js';
import type { Device } from '../../src/model/devices.js';
import type { StoredNotification } from '../../src/model/notifications.js';
import type { SendToken } from '../../src/model/tokens.js';

/**
 * A response schema serializes its response, and fast-json-stringify leaves out any member the
 * schema does not list: each view, with every member it can carry, must arrive whole. (The
 * conformance tests read the same members from the real routes; these hold every one at once.)
 */

const AT = Date.UTC(2027, 0, 2, 3, 4, 5, 6);
const providers = await describedProviders();

const device: Device = {
  id: 'dev_0001',
  accountId: 'acct_0001',
  name: "Ana's iPhone",
  platform: 'ios',
  address: {
    provider: 'web-push',
    key: 'https://web.push.apple.com/x',
    data: { p256dh: 'p', auth: 'a', appUrl: null },
  },
  clientId: 'app-install-0001',
  addressSince: AT,
  inAuto: false,
  active: false,
  inactiveReason: 'subscription_gone',
  createdAt: AT,
  lastSeenAt: AT + 60_000,
};

const token: SendToken = {
  id: 'tok_0001',
  accountId: 'acct_0001',
  name: 'CI',
  kind: 'agent',
  ownStatus: false,
  deviceNames: true,
  scenes: ['rocket', 'notice'],
  allowUrls: true,
  defaultTarget: 'watch',
  expiresAt: AT + 86_400_000,
  revokedAt: AT + 3_600_000,
  createdAt: AT,
};

const stored: StoredNotification = {
  id: 'ntf_0001',
  accountId: 'acct_0001',
  tokenId: 'tok_0001',
  senderName: 'CI',
  notification: {
    message: 'Deployed',
    title: 'api',
    subtitle: 'main',
    scene: 'rocket',
    scene_version: 1,
    scene_params: { countdown: 5, nested: { list: [1, 'two', null] } },
    bell_color: '#12ab34',
    url: 'https://example.com/run/1',
    url_title: 'Run',
    image: 'https://example.com/a.png',
    level: 'time-sensitive',
    group: 'deploys',
    tag: 'deploy',
    sound: 'none',
    ttl: 600,
    target: 'iphone',
  },
  status: 'dropped',
  reason: 'token_revoked',
  createdAt: AT,
  expiresAt: AT + 600_000,
  destinations: [
    {
      deviceId: 'dev_0001',
      deviceName: "Ana's iPhone",
      platform: 'ios',
      state: 'failed_permanent',
      pushStatus: 410,
      reason: 'gone',
      updatedAt: AT,
    },
  ],
  handled: [{ deviceId: 'dev_0001', platform: 'ios', action: 'opened', at: AT }],
};

let app: ReturnType<typeof Fastify> | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** What a route documented with `schema` sends when its handler returns `value`. */
async function served(schema: z.ZodType, value: unknown): Promise<{ text: string; body: unknown }> {
  app = Fastify();
  registerResponseSchemas(app);
  app.get(
    '/',
    {
      config: {
        doc: { operationId: 'test', summary: 'test', responses: { 200: { description: 'test', schema } } },
      },
    },
    async () => value,
  );
  const response = await app.inject({ method: 'GET', url: '/' });
  expect(response.statusCode, response.body).toBe(200);
  return { text: response.body, body: response.json() };
}

describe('a response schema', () => {
  it.each([
    ['a device', deviceSchema(providers), deviceView(device, { now: AT, staleMs: 1, providers })],
    ['a token', tokenSchema, tokenView(token)],
    ['a new token', newTokenSchema, { ...tokenView(token), token: 'fox_send_secret' }],
    ['a status record', statusRecordSchema, statusRecordView(stored, { deviceNames: true })],
    ['an inbox item', inboxItemSchema, inboxItemView(stored)],
  ])('sends every member %s can carry, as the view made it', async (_what, schema, view) => {
    const { text, body } = await served(schema, view);
    expect(body).toEqual(view);
    // In the order the view (and the schema) gives them: a person reads them so.
    expect(Object.keys(body as object)).toEqual(Object.keys(view).filter((key) => key in (body as object)));
    expect(text).not.toContain('undefined');
  });

  it('leaves out what it does not list, and what a view leaves out stays out', async () => {
    const view = deviceView(
      {
        ...device,
        clientId: null,
        inactiveReason: null,
        active: true,
        lastSeenAt: null,
        address: { provider: 'apns', key: 'a'.repeat(64), data: null },
      },
      { now: AT, staleMs: 1, providers },
    );
    const { body } = await served(deviceSchema(providers), { ...view, key_hash: 'secret' });
    expect(body).toEqual(view);
    expect(Object.keys(body as object)).toEqual([
      'id',
      'name',
      'platform',
      'in_auto',
      'active',
      'created_at',
      'last_seen_at',
      'stale',
    ]);
  });
});
