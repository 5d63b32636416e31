import { type AccountMerge, accountEnded, type Credential } from '../../model/accounts.js';
import { planMerge } from '../../model/merge.js';
import type { SendToken } from '../../model/tokens.js';
import { liveToken } from '../queries.js';
import { accountFromRow, joinedAccountFromRow, type Row, tokenOf } from '../rows.js';
import { type CredentialsPart, RETIRED_LISTED } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import { int, type SqliteConnection } from './connection.js';
import { removeDevice } from './settling.js';

/** A flood of distinct valid secrets cannot grow the copy of credentials without end. */
const MAX_CREDENTIALS_KEPT = 10_000;

/**
 * Accounts, their keys and their send tokens. Every request reads its credential, so this keeps a
 * copy of the ones found: only the one `api` store writes these tables (workers never do), so the
 * copy cannot go stale, and every write that changes a credential clears it.
 */
export function sqliteCredentials(db: SqliteConnection): CredentialsPart {
  const kept = new Map<string, Credential>();

  const lookUp = (secretHash: string): Credential | undefined => {
    // One query for the common case, a send token: the token row and its account together.
    const token = db.get(
      `SELECT t.*, a.id AS a_id, a.name AS a_name, a.key_generation AS a_key_generation,
         a.created_at AS a_created_at, a.deleted_at AS a_deleted_at, a.merged_into AS a_merged_into
       FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.secret_hash = ?`,
      secretHash,
    );
    if (token) {
      return { kind: 'send', token: tokenOf(token), account: joinedAccountFromRow(token) };
    }
    const account = db.get('SELECT * FROM accounts WHERE key_hash = ?', secretHash);
    if (account) return { kind: 'account', account: accountFromRow(account) };
    const retired = db.get(
      'SELECT a.* FROM retired_account_keys r JOIN accounts a ON a.id = r.account_id WHERE r.key_hash = ?',
      secretHash,
    );
    return retired && { kind: 'retired_account_key', account: accountFromRow(retired) };
  };

  return {
    async findCredential(secretHash) {
      const copy = kept.get(secretHash);
      if (copy) return copy;
      const found = lookUp(secretHash);
      if (kept.size >= MAX_CREDENTIALS_KEPT) kept.clear();
      if (found) kept.set(secretHash, found);
      return found;
    },

    async createAccount(account) {
      await db.write(() =>
        db.run(
          'INSERT INTO accounts (id, name, key_hash, key_generation, created_at) VALUES (?, ?, ?, 1, ?)',
          account.id,
          account.name,
          account.keyHash,
          account.now,
        ),
      );
      return accountFromRow(db.get('SELECT * FROM accounts WHERE id = ?', account.id) as Row);
    },

    async rotateAccountKey(accountId, change) {
      kept.clear();
      return db.write(() => {
        const row = db.get('SELECT key_hash, key_generation FROM accounts WHERE id = ?', accountId) as Row;
        const generation = Number(row.key_generation);
        if (change.expectedGeneration !== undefined && change.expectedGeneration !== generation) {
          return { ok: false, generation } as const;
        }
        db.run(
          'INSERT INTO retired_account_keys (key_hash, account_id, retired_at) VALUES (?, ?, ?)',
          row.key_hash,
          accountId,
          change.now,
        );
        db.run(
          'UPDATE accounts SET key_hash = ?, key_generation = ? WHERE id = ?',
          change.keyHash,
          generation + 1,
          accountId,
        );
        return { ok: true, generation: generation + 1 } as const;
      });
    },

    async deleteAccount(accountId, now) {
      kept.clear();
      await db.write(() => {
        requireLiveAccount(db, accountId);
        db.run('UPDATE accounts SET deleted_at = ? WHERE id = ?', now, accountId);
        db.run(
          "UPDATE devices SET active = 0, removed_at = ?, inactive_reason = 'removed' WHERE account_id = ? AND active = 1",
          now,
          accountId,
        );
        db.run(
          `UPDATE destinations SET state = 'skipped', updated_at = ?
           WHERE state = 'pending' AND notification_id IN (SELECT id FROM notifications WHERE account_id = ?)`,
          now,
          accountId,
        );
        db.run(
          `UPDATE notifications INDEXED BY notifications_queued SET routed_at = ?
           WHERE routed_at IS NULL AND account_id = ?`,
          now,
          accountId,
        );
      });
    },

    async createToken(token, secretHash, maxTokens) {
      return db.write((): SendToken | 'limit_reached' => {
        requireLiveAccount(db, token.accountId);
        const live = db.get(
          `SELECT count(*) AS n FROM tokens WHERE account_id = ? AND ${liveToken('?')}`,
          token.accountId,
          token.createdAt,
        ) as Row;
        if (Number(live.n) >= maxTokens) return 'limit_reached';
        db.run(
          `INSERT INTO tokens (id, account_id, secret_hash, name, kind, own_status, device_names, scenes,
             allow_urls, default_target, expires_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          token.id,
          token.accountId,
          secretHash,
          token.name,
          token.kind,
          int(token.ownStatus),
          int(token.deviceNames),
          token.scenes === null ? null : JSON.stringify(token.scenes),
          int(token.allowUrls),
          token.defaultTarget,
          token.expiresAt,
          token.createdAt,
        );
        return { ...token, revokedAt: null };
      });
    },

    async listTokens(accountId, now) {
      return db
        .all(
          `SELECT * FROM (
             SELECT *, row_number() OVER (PARTITION BY retired ORDER BY created_at DESC, r DESC) AS newest
             FROM (SELECT t.*, t.rowid AS r, NOT ${liveToken('?')} AS retired
                   FROM tokens t WHERE account_id = ?))
           WHERE NOT retired OR newest <= ? ORDER BY created_at, r`,
          now,
          accountId,
          RETIRED_LISTED,
        )
        .map(tokenOf);
    },

    async mergeAccounts({ canonicalId, mergedId, now, limits }) {
      kept.clear();
      return db.write((): AccountMerge => {
        // Checked again in the write: a merge or deletion that ran since the route's checks (B
        // takes A while A takes B) leaves every account reachable through a working key.
        requireLiveAccount(db, canonicalId);
        if (accountEnded(accountFromRow(db.get('SELECT * FROM accounts WHERE id = ?', mergedId) as Row))) {
          return { kind: 'other_ended' };
        }
        const groupOf = (id: string) =>
          Number((db.get('SELECT count(*) AS n FROM accounts WHERE merged_into = ?', id) as Row).n) + 1;
        const devicesOf = (id: string) =>
          db
            .all('SELECT id, client_id FROM devices WHERE account_id = ? AND active = 1', id)
            .map((row) => ({ id: row.id as string, clientId: (row.client_id as string | null) ?? null }));
        const mergedDevices = devicesOf(mergedId);
        const plan = planMerge(
          { canonicalGroup: groupOf(canonicalId), mergedGroup: groupOf(mergedId) },
          { canonical: devicesOf(canonicalId), merged: mergedDevices },
          limits,
        );
        if (plan.kind !== 'merge') return plan;
        // The canonical account's registration of the same device stays: this one moved there.
        for (const id of plan.removed) {
          removeDevice(db, id, now, 'moved');
        }
        // A switch request of a device the merge moved or removed would act on a registration that
        // is no longer the one it proved.
        db.run(
          `UPDATE link_requests SET state = 'superseded'
           WHERE state = 'pending' AND source_device_id IN (SELECT value FROM json_each(?))`,
          JSON.stringify(mergedDevices.map((device) => device.id)),
        );
        for (const table of ['devices', 'tokens', 'notifications', 'link_wrong_codes']) {
          db.run(`UPDATE ${table} SET account_id = ? WHERE account_id = ?`, canonicalId, mergedId);
        }
        db.run(
          'UPDATE link_requests SET approved_account_id = ? WHERE approved_account_id = ?',
          canonicalId,
          mergedId,
        );
        db.run(
          'UPDATE accounts SET merged_into = ? WHERE id = ? OR merged_into = ?',
          canonicalId,
          mergedId,
          mergedId,
        );
        const group = db
          .all(
            'SELECT id FROM accounts WHERE id = ? OR merged_into = ? ORDER BY created_at, id',
            canonicalId,
            canonicalId,
          )
          .map((row) => row.id as string);
        return { kind: 'merged', accounts: group };
      });
    },

    async revokeToken(accountId, tokenId, now) {
      kept.clear();
      return db.write(() => {
        const changed = db.run(
          'UPDATE tokens SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL',
          now,
          tokenId,
          accountId,
        );
        if (changed === 0) {
          return (
            db.get('SELECT 1 FROM tokens WHERE id = ? AND account_id = ?', tokenId, accountId) !== undefined
          );
        }
        db.run(
          `UPDATE notifications INDEXED BY notifications_queued
           SET status = 'dropped', reason = 'token_revoked', routed_at = ?
           WHERE routed_at IS NULL AND token_id = ? AND status = 'accepted'`,
          now,
          tokenId,
        );
        return true;
      });
    },
  };
}
