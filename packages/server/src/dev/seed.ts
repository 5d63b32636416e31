import { DEV_DEVICES } from '@foxbell/sdk/server-contract';
import type { Clock } from '../kernel/clock.js';
import type { IdSource } from '../kernel/ids.js';
import { hashSecret } from '../kernel/secrets.js';
import { simulatedAddress } from '../simulator/device-page.js';
import type { Store } from '../store/store.js';

export interface DevSeed {
  accountId: string;
  accountKey: string;
  token: string;
}

/**
 * On the first `--dev` start, one account with three simulated devices and one send token.
 * Returns the secrets only when it made them (they are stored hashed, so this is the one time
 * they exist in clear); undefined when the store was seeded before.
 */
export async function seedDevAccount(
  store: Store,
  ids: IdSource,
  clock: Clock,
): Promise<DevSeed | undefined> {
  if ((await store.getSetting('dev_account')) !== undefined) return undefined;
  const now = clock.now();
  const accountKey = ids.secret('acct');
  const account = await store.createAccount({
    id: ids.id('acct'),
    name: 'Dev',
    keyHash: hashSecret(accountKey),
    now,
  });
  for (const device of DEV_DEVICES) {
    await store.createDevice(
      {
        id: ids.id('dev'),
        accountId: account.id,
        ...device,
        address: simulatedAddress(),
        inAuto: true,
        now,
      },
      DEV_DEVICES.length,
    );
  }
  const token = ids.secret('send');
  await store.createToken(
    {
      id: ids.id('tok'),
      accountId: account.id,
      name: 'Foxbell dev',
      kind: 'standard',
      ownStatus: true,
      deviceNames: true,
      scenes: null,
      allowUrls: true,
      defaultTarget: null,
      expiresAt: null,
      createdAt: now,
    },
    hashSecret(token),
    1,
  );
  await store.setSetting('dev_account', account.id);
  return { accountId: account.id, accountKey, token };
}
