import { type Account, AccountEndedError, type AccountMerge, accountEnded } from '../../model/accounts.js';
import { planMerge } from '../../model/merge.js';
import type { SendToken } from '../../model/tokens.js';
import { listed, liveToken } from '../queries.js';
import { accountFromRow, deviceOf, type Row, tokenOf } from '../rows.js';
import { type CredentialsPart, RETIRED_LISTED } from '../store.js';
import { all, changes, count, type Dialect, get, type Plan } from './plan.js';
import { settling } from './settling.js';

/**
 * The account as it is now, inside a write (on PostgreSQL, one that holds its lock, `account:<id>`,
 * which a merge and a deletion take too): one merged or deleted since its request began ends the write.
 */
export function* requireLiveAccount(accountId: string): Plan<Account> {
  const account = accountFromRow((yield* get('SELECT * FROM accounts WHERE id = $1', accountId)) as Row);
  if (accountEnded(account)) throw new AccountEndedError(account);
  return account;
}

/**
 * Accounts, their keys, their merges and their send tokens: all but the lookup of a secret, which
 * each database makes its own way (credential-lookup.ts). `changed` is called before every write
 * that changes a credential, for a copy of them to be forgotten.
 */
export function accountsAndTokens(
  d: Dialect,
  changed: () => void = () => {},
): Omit<CredentialsPart, 'findCredential'> {
  const { removeDevices } = settling(d);
  const listedTokens = listed('tokens', d.madeOrder, `NOT ${liveToken('$3')}`);
  return {
    async createAccount(account) {
      const row = await d.write(() =>
        get(
          `INSERT INTO accounts (id, name, key_hash, key_generation, created_at) VALUES ($1, $2, $3, 1, $4)
           RETURNING *`,
          account.id,
          account.name,
          account.keyHash,
          account.now,
        ),
      );
      return accountFromRow(row as Row);
    },

    async rotateAccountKey(accountId, change) {
      changed();
      return d.write(function* () {
        const row = (yield* get(
          `SELECT key_hash, key_generation FROM accounts WHERE id = $1${d.forUpdate}`,
          accountId,
        )) as Row;
        const generation = Number(row.key_generation);
        if (change.expectedGeneration !== undefined && change.expectedGeneration !== generation) {
          return { ok: false, generation } as const;
        }
        yield* all(
          'INSERT INTO retired_account_keys (key_hash, account_id, retired_at) VALUES ($1, $2, $3)',
          row.key_hash,
          accountId,
          change.now,
        );
        yield* all(
          'UPDATE accounts SET key_hash = $1, key_generation = $2 WHERE id = $3',
          change.keyHash,
          generation + 1,
          accountId,
        );
        return { ok: true, generation: generation + 1 } as const;
      });
    },

    async mergeAccounts({ canonicalId, mergedId, now, limits }) {
      changed();
      // Both accounts' locks, which their sends take too: a send is stored before the merge (and
      // moved by it) or after it (under the token's new account), never between.
      return d.write(
        function* (): Plan<AccountMerge> {
          // Checked again in the write: a merge or deletion that ran since the route's checks (B
          // takes A while A takes B) leaves every account reachable through a working key.
          yield* requireLiveAccount(canonicalId);
          const other = yield* get('SELECT * FROM accounts WHERE id = $1', mergedId);
          if (accountEnded(accountFromRow(other as Row))) return { kind: 'other_ended' };
          function* groupOf(id: string) {
            return (yield* count('SELECT count(*) AS n FROM accounts WHERE merged_into = $1', id)) + 1;
          }
          function* devicesOf(id: string) {
            const rows = yield* all(`SELECT * FROM devices WHERE account_id = $1 AND active = ${d.true}`, id);
            return rows.map(deviceOf);
          }
          const mergedDevices = yield* devicesOf(mergedId);
          const plan = planMerge(
            { canonicalGroup: yield* groupOf(canonicalId), mergedGroup: yield* groupOf(mergedId) },
            { canonical: yield* devicesOf(canonicalId), merged: mergedDevices },
            limits,
          );
          if (plan.kind !== 'merge') return plan;
          // The canonical account's registration of the same device stays: this one moved there.
          yield* removeDevices(plan.removed, now, 'moved');
          // A switch request of a device the merge moved or removed would act on a registration that
          // is no longer the one it proved.
          yield* all(
            `UPDATE link_requests SET state = 'superseded' WHERE state = 'pending' AND source_device_id ${d.inList('$1')}`,
            d.list(mergedDevices.map((device) => device.id)),
          );
          for (const table of ['devices', 'tokens', 'notifications', 'link_wrong_codes']) {
            yield* all(`UPDATE ${table} SET account_id = $1 WHERE account_id = $2`, canonicalId, mergedId);
          }
          yield* all(
            'UPDATE link_requests SET approved_account_id = $1 WHERE approved_account_id = $2',
            canonicalId,
            mergedId,
          );
          yield* all(
            'UPDATE accounts SET merged_into = $1 WHERE id = $2 OR merged_into = $2',
            canonicalId,
            mergedId,
          );
          const group = yield* all(
            'SELECT id FROM accounts WHERE id = $1 OR merged_into = $1 ORDER BY created_at, id',
            canonicalId,
          );
          return { kind: 'merged', accounts: group.map((row) => row.id as string) };
        },
        [`account:${canonicalId}`, `account:${mergedId}`],
      );
    },

    async deleteAccount(accountId, now) {
      changed();
      // The account's lock, which a merge and its sends take too: it is deleted whole, or merged first.
      await d.write(
        function* () {
          yield* requireLiveAccount(accountId);
          yield* all('UPDATE accounts SET deleted_at = $1 WHERE id = $2', now, accountId);
          yield* all(
            `UPDATE devices SET active = ${d.false}, removed_at = $1, inactive_reason = 'removed'
           WHERE account_id = $2 AND active = ${d.true}`,
            now,
            accountId,
          );
          yield* all(
            `UPDATE destinations SET state = 'skipped', updated_at = $1
           WHERE state = 'pending' AND notification_id IN (SELECT id FROM notifications WHERE account_id = $2)`,
            now,
            accountId,
          );
          yield* d.unqueue({ accountId }, now);
        },
        [`account:${accountId}`],
      );
    },

    async createToken(token, secretHash, maxTokens) {
      // The account's lock: two tokens made at once cannot both take the last place.
      return d.write(
        function* (): Plan<SendToken | 'limit_reached'> {
          yield* requireLiveAccount(token.accountId);
          const live = yield* count(
            `SELECT count(*) AS n FROM tokens WHERE account_id = $1 AND ${liveToken('$2')}`,
            token.accountId,
            token.createdAt,
          );
          if (live >= maxTokens) return 'limit_reached';
          yield* all(
            `INSERT INTO tokens (id, account_id, secret_hash, name, kind, own_status, device_names, scenes,
               allow_urls, default_target, expires_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
            token.id,
            token.accountId,
            secretHash,
            token.name,
            token.kind,
            token.ownStatus,
            token.deviceNames,
            token.scenes === null ? null : JSON.stringify(token.scenes),
            token.allowUrls,
            token.defaultTarget,
            token.expiresAt,
            token.createdAt,
          );
          return { ...token, revokedAt: null };
        },
        [`account:${token.accountId}`],
      );
    },

    async listTokens(accountId, now) {
      const rows = await d.read(all(listedTokens, accountId, RETIRED_LISTED, now));
      return rows.map(tokenOf);
    },

    async revokeToken(accountId, tokenId, now) {
      changed();
      return d.write(function* () {
        const revoked = yield* changes(
          'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL',
          now,
          tokenId,
          accountId,
        );
        if (revoked === 0) {
          return (
            (yield* get('SELECT 1 FROM tokens WHERE id = $1 AND account_id = $2', tokenId, accountId)) !==
            undefined
          );
        }
        yield* d.unqueue({ tokenId }, now);
        return true;
      });
    },
  };
}
