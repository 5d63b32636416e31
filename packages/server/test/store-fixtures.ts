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

/**
 * Rows as a release before the reasons' migration (SQLite's 9th, PostgreSQL's 7th) left them: inactive devices and ended
 * destinations, none saying why. `bool` spells a boolean as the database takes it.
 */
export function rowsBeforeReasons(bool: (value: boolean) => string): string {
  const payload = JSON.stringify(STORED_NOTIFICATION).replaceAll("'", "''");
  const keys = JSON.stringify({ p256dh: 'BPk', auth: 'au', appUrl: null });
  const device = (
    id: string,
    account: string,
    { active = false, provider = "'apns'", webPush = 'NULL', revoked = 'NULL' } = {},
  ) =>
    `('${id}', '${account}', '${id}', 'ios', '${id}-address', ${bool(true)}, ${bool(active)}, ${T0},
      ${active ? 'NULL' : T0 + 1}, ${provider}, ${webPush}, ${revoked})`;
  const destination = (deviceId: string, state: string, status: number | null) =>
    `('ntf_before', '${deviceId}', 'ios', '${state}', ${status ?? 'NULL'}, ${T0}, '${deviceId}-push', ${T0},
      ${T0 + 3_600_000})`;
  return `
    INSERT INTO accounts (id, name, key_hash, key_generation, created_at, deleted_at)
      VALUES ('acct_live', NULL, 'h1', 1, ${T0}, NULL), ('acct_deleted', NULL, 'h2', 1, ${T0}, ${T0 + 1});
    INSERT INTO devices (id, account_id, name, platform, push_token, in_auto, active, created_at, removed_at,
                         provider, web_push, key_revoked_at)
      VALUES ${[
        device('dev_apns_gone', 'acct_live'),
        device('dev_web_gone', 'acct_live', { provider: "'web-push'", webPush: `'${keys}'` }),
        device('dev_legacy_web_gone', 'acct_live', { provider: 'NULL', webPush: `'${keys}'` }),
        device('dev_removed', 'acct_live', { revoked: String(T0 + 1) }),
        device('dev_active', 'acct_live', { active: true }),
        device('dev_of_deleted', 'acct_deleted'),
      ].join(',\n')};
    INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status, created_at,
                               expires_at, routed_at)
      VALUES ('ntf_before', 'acct_live', 'tok_1', 'req_1', 'CI', '${payload}', 'accepted', ${T0},
              ${T0 + 3_600_000}, ${T0});
    INSERT INTO destinations (notification_id, device_id, platform, state, push_status, updated_at, apns_id,
                              created_at, expires_at)
      VALUES ${[
        destination('dev_410', 'failed_permanent', 410),
        destination('dev_400', 'failed_permanent', 400),
        destination('dev_404', 'failed_permanent', 404),
        destination('dev_503', 'failed_permanent', 503),
        destination('dev_429', 'failed_permanent', 429),
        destination('dev_none', 'failed_permanent', null),
        destination('dev_expired', 'expired', 503),
        destination('dev_accepted', 'accepted', 200),
      ].join(',\n')};
  `;
}

/** What the reasons' migration makes of `rowsBeforeReasons`: each reason the rows tell, and none they do not. */
export async function expectReasonsFilledIn(store: Store): Promise<void> {
  const devices = await store.listDevices('acct_live', { activeOnly: false });
  expect(devices.map((device) => [device.id, device.active, device.inactiveReason])).toEqual([
    ['dev_apns_gone', false, 'unregistered'],
    ['dev_web_gone', false, 'subscription_gone'],
    ['dev_legacy_web_gone', false, 'subscription_gone'],
    // Removed or moved: its key was revoked, which both do.
    ['dev_removed', false, null],
    ['dev_active', true, null],
  ]);
  expect(
    (await store.listDevices('acct_deleted', { activeOnly: false })).map((device) => device.inactiveReason),
  ).toEqual([null]);
  const record = await store.getNotification('ntf_before');
  expect(record?.destinations.map((d) => [d.deviceId, d.reason])).toEqual([
    ['dev_410', 'gone'],
    ['dev_400', 'refused'],
    // APNs' BadPath or Web Push's gone: the row does not say which provider responded.
    ['dev_404', null],
    ['dev_503', 'attempts_exhausted'],
    ['dev_429', 'attempts_exhausted'],
    ['dev_none', null],
    ['dev_expired', 'expired'],
    ['dev_accepted', null],
  ]);
}
