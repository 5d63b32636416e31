import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { hashSecret } from '../src/kernel/secrets.js';
import type { Account } from '../src/model/accounts.js';
import type { NewSend } from '../src/model/admission.js';
import type { SendToken } from '../src/model/tokens.js';
import type { RateLimits, Store } from '../src/store/store.js';

/** Sends, accounts and devices made straight in a store, for the store's own tests. */

export const T0 = Date.parse('2026-11-22T10:00:00.000Z');
export const LIMITS: RateLimits = {
  perTokenPerMinute: 30,
  perAccountPerMinute: 60,
  perAccountPerMonth: 10_000,
};

/** A notification as the store keeps it: validated, every default applied. */
export const STORED_NOTIFICATION: NewSend['notification'] = {
  message: 'Build passed',
  scene: 'rocket',
  scene_version: 1,
  scene_params: {},
  bell_color: 'orange',
  level: 'active',
  sound: 'default',
  ttl: 3600,
  target: 'auto',
};

export const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

export async function accountWithDevices(
  store: Store,
  platforms: ('ios' | 'watchos' | 'visionos')[] = ['ios', 'watchos'],
) {
  const account = await store.createAccount({ id: id('acc'), name: null, keyHash: id('key'), now: T0 });
  const token = await addToken(store, account.id, { name: 'CI' });
  const devices = [];
  for (const platform of platforms) {
    const device = await store.createDevice(
      {
        id: id('dev'),
        accountId: account.id,
        name: `${platform} ${randomUUID().slice(0, 8)}`,
        platform,
        address: { provider: 'apns', key: randomUUID().replaceAll('-', '').repeat(2), data: null },
        inAuto: true,
        now: T0,
      },
      10,
    );
    if (typeof device === 'string') throw new Error(device);
    devices.push(device);
  }
  return { account, token, devices };
}

export function newSend(
  account: Account,
  token: SendToken,
  now: number,
  extra: { key?: string; fingerprint?: string; tag?: string; ttl?: number; limits?: RateLimits } = {},
): NewSend {
  return {
    id: id('ntf'),
    requestId: id('req'),
    account,
    token,
    notification: {
      ...STORED_NOTIFICATION,
      ttl: extra.ttl ?? STORED_NOTIFICATION.ttl,
      ...(extra.tag === undefined ? {} : { tag: extra.tag }),
    },
    idempotency:
      extra.key === undefined ? undefined : { key: extra.key, fingerprint: extra.fingerprint ?? 'f1' },
    now,
    limits: extra.limits ?? LIMITS,
  };
}

/** A standard token of `accountId` stored directly, with these options over the defaults. */
export async function addToken(
  store: Store,
  accountId: string,
  options: { name: string; id?: string; secretHash?: string; expiresAt?: number | null },
): Promise<SendToken> {
  return (await store.createToken(
    {
      id: options.id ?? id('tok'),
      accountId,
      name: options.name,
      kind: 'standard',
      ownStatus: true,
      deviceNames: false,
      scenes: null,
      allowUrls: true,
      defaultTarget: null,
      expiresAt: options.expiresAt ?? null,
      createdAt: T0,
    },
    options.secretHash ?? id('secret'),
    1000,
  )) as SendToken;
}

/** The secrets behind a release fixture's hashes (a test database's, never a real one's). */
export interface ReleaseFixture {
  accountKey: string;
  token: string;
  id: string;
}

/**
 * What every release fixture holds, as each release's server wrote it: an account named Fixture
 * with Ana's iPhone, a token named CI, and one notification sent with an idempotency key and
 * delivered to the simulator. Checks it is all there, and that the store takes a new send.
 */
export async function expectReleaseFixture(store: Store, fixture: ReleaseFixture): Promise<void> {
  const credential = await store.findCredential(hashSecret(fixture.token));
  if (credential?.kind !== 'send') throw new Error(`the fixture's token is ${credential?.kind}`);
  const account = await store.findCredential(hashSecret(fixture.accountKey));
  expect(account?.kind === 'account' && account.account.name).toBe('Fixture');
  const stored = await store.getNotification(fixture.id);
  expect(stored).toMatchObject({
    senderName: 'CI',
    status: 'sent_to_push',
    notification: { message: 'Build passed', title: 'CI', scene: 'rocket' },
    destinations: [{ platform: 'ios', state: 'accepted', pushStatus: 200 }],
  });
  const devices = await store.listDevices(stored?.accountId as string, { activeOnly: true });
  expect(devices.map((device) => [device.name, device.platform])).toEqual([["Ana's iPhone", 'ios']]);
  const now = (stored?.createdAt as number) + 60_000;
  const accepted = await store.acceptSend({
    id: 'ntf_new',
    requestId: 'req_new',
    account: credential.account,
    token: credential.token,
    notification: { ...STORED_NOTIFICATION, target: 'auto' },
    idempotency: undefined,
    now,
    limits: LIMITS,
  });
  expect(accepted.kind).toBe('accepted');
  expect((await store.getNotification('ntf_new'))?.status).toBe('accepted');
}
