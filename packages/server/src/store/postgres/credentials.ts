import { TurnBatcher } from '../../kernel/turn-batcher.js';
import { type AccountMerge, accountEnded, type Credential } from '../../model/accounts.js';
import { planMerge } from '../../model/merge.js';
import type { SendToken } from '../../model/tokens.js';
import { liveToken } from '../queries.js';
import { accountFromRow, type Row, tokenOf } from '../rows.js';
import { type CredentialsPart, RETIRED_LISTED } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import type { PostgresConnection } from './connection.js';
import { removeDevices } from './settling.js';

/**
 * Accounts, their keys and their send tokens. Credentials are read on every request, from the
 * database (any process may have revoked a token): requests that arrive in the same turn of the
 * event loop share one query, made after all of them arrived, so none sees a state older than
 * its arrival.
 */
export function postgresCredentials(db: PostgresConnection): CredentialsPart {
  /** The credentials behind secret hashes, in one statement for all of them. */
  const lookUp = async (hashes: readonly string[]): Promise<(Credential | undefined)[]> => {
    // A secret is a send token, an account key or a retired account key: one statement asks all three.
    const rows = await db.read(
      `SELECT 'send' AS kind, t.secret_hash AS hash, row_to_json(t) AS token, row_to_json(a) AS account
         FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.secret_hash = ANY($1)
       UNION ALL
       SELECT 'account', a.key_hash, NULL, row_to_json(a) FROM accounts a WHERE a.key_hash = ANY($1)
       UNION ALL
       SELECT 'retired_account_key', r.key_hash, NULL, row_to_json(a)
         FROM retired_account_keys r JOIN accounts a ON a.id = r.account_id WHERE r.key_hash = ANY($1)`,
      [hashes],
    );
    const found = new Map<string, Credential>();
    for (const row of rows) {
      const account = accountFromRow(row.account as Row);
      const hash = row.hash as string;
      if (row.kind === 'send') found.set(hash, { kind: 'send', token: tokenOf(row.token as Row), account });
      else if (row.kind === 'account') found.set(hash, { kind: 'account', account });
      else found.set(hash, { kind: 'retired_account_key', account });
    }
    return hashes.map((hash) => found.get(hash));
  };
  // Lookups do not wait for each other: any number run at once.
  const credentials = new TurnBatcher<string, Credential | undefined>(lookUp, {
    maxInFlight: Number.POSITIVE_INFINITY,
  });

  return {
    findCredential: (secretHash) => credentials.add(secretHash),

    async createAccount(account) {
      const row = await db.transaction((session) =>
        session.row(
          `INSERT INTO accounts (id, name, key_hash, key_generation, created_at) VALUES ($1, $2, $3, 1, $4)
           RETURNING *`,
          [account.id, account.name, account.keyHash, account.now],
        ),
      );
      return accountFromRow(row as Row);
    },

    async rotateAccountKey(accountId, change) {
      return db.transaction(async (session) => {
        const row = (await session.row(
          'SELECT key_hash, key_generation FROM accounts WHERE id = $1 FOR UPDATE',
          [accountId],
        )) as Row;
        const generation = Number(row.key_generation);
        if (change.expectedGeneration !== undefined && change.expectedGeneration !== generation) {
          return { ok: false, generation } as const;
        }
        await session.rows(
          'INSERT INTO retired_account_keys (key_hash, account_id, retired_at) VALUES ($1, $2, $3)',
          [row.key_hash, accountId, change.now],
        );
        await session.rows('UPDATE accounts SET key_hash = $1, key_generation = $2 WHERE id = $3', [
          change.keyHash,
          generation + 1,
          accountId,
        ]);
        return { ok: true, generation: generation + 1 } as const;
      });
    },

    async mergeAccounts({ canonicalId, mergedId, now, limits }) {
      // Both accounts' locks, which their sends take too: a send is stored before the merge (and
      // moved by it) or after it (under the token's new account), never between.
      return db.transaction(
        async (session): Promise<AccountMerge> => {
          // Checked again under both locks: a merge or deletion that ran while this one waited
          // (B takes A while A takes B) leaves every account reachable through a working key.
          await requireLiveAccount(session, canonicalId);
          const other = accountFromRow(
            (await session.row('SELECT * FROM accounts WHERE id = $1', [mergedId])) as Row,
          );
          if (accountEnded(other)) return { kind: 'other_ended' };
          const groupOf = async (id: string) =>
            Number(
              ((await session.row('SELECT count(*) AS n FROM accounts WHERE merged_into = $1', [id])) as Row)
                .n,
            ) + 1;
          const devicesOf = async (id: string) =>
            (
              await session.rows('SELECT id, client_id FROM devices WHERE account_id = $1 AND active', [id])
            ).map((row) => ({ id: row.id as string, clientId: (row.client_id as string | null) ?? null }));
          const mergedDevices = await devicesOf(mergedId);
          const plan = planMerge(
            { canonicalGroup: await groupOf(canonicalId), mergedGroup: await groupOf(mergedId) },
            { canonical: await devicesOf(canonicalId), merged: mergedDevices },
            limits,
          );
          if (plan.kind !== 'merge') return plan;
          // The canonical account's registration of the same device stays: this one moved there.
          await removeDevices(session, plan.removed, now, 'moved');
          // A switch request of a device the merge moved or removed would act on a registration
          // that is no longer the one it proved.
          await session.rows(
            "UPDATE link_requests SET state = 'superseded' WHERE state = 'pending' AND source_device_id = ANY($1)",
            [mergedDevices.map((device) => device.id)],
          );
          for (const table of ['devices', 'tokens', 'notifications', 'link_wrong_codes']) {
            await session.rows(`UPDATE ${table} SET account_id = $1 WHERE account_id = $2`, [
              canonicalId,
              mergedId,
            ]);
          }
          await session.rows(
            'UPDATE link_requests SET approved_account_id = $1 WHERE approved_account_id = $2',
            [canonicalId, mergedId],
          );
          await session.rows('UPDATE accounts SET merged_into = $1 WHERE id = $2 OR merged_into = $2', [
            canonicalId,
            mergedId,
          ]);
          const group = await session.rows(
            'SELECT id FROM accounts WHERE id = $1 OR merged_into = $1 ORDER BY created_at, id',
            [canonicalId],
          );
          return { kind: 'merged', accounts: group.map((row) => row.id as string) };
        },
        [`account:${canonicalId}`, `account:${mergedId}`],
      );
    },

    async deleteAccount(accountId, now) {
      // The account's lock, which a merge and its sends take too: it is deleted whole, or merged first.
      await db.transaction(
        async (session) => {
          await requireLiveAccount(session, accountId);
          await session.rows('UPDATE accounts SET deleted_at = $1 WHERE id = $2', [now, accountId]);
          await session.rows(
            "UPDATE devices SET active = false, removed_at = $1, inactive_reason = 'removed' WHERE account_id = $2 AND active",
            [now, accountId],
          );
          await session.rows(
            `UPDATE destinations SET state = 'skipped', updated_at = $1
           WHERE state = 'pending' AND notification_id IN (SELECT id FROM notifications WHERE account_id = $2)`,
            [now, accountId],
          );
          await session.rows(
            'DELETE FROM route_queue WHERE notification_id IN (SELECT id FROM notifications WHERE account_id = $1)',
            [accountId],
          );
        },
        [`account:${accountId}`],
      );
    },

    async createToken(token, secretHash, maxTokens) {
      // The account's lock: two tokens made at once cannot both take the last place.
      return db.transaction(
        async (session): Promise<SendToken | 'limit_reached'> => {
          await requireLiveAccount(session, token.accountId);
          const live = (await session.row(
            `SELECT count(*) AS n FROM tokens WHERE account_id = $1 AND ${liveToken('$2')}`,
            [token.accountId, token.createdAt],
          )) as Row;
          if (Number(live.n) >= maxTokens) return 'limit_reached';
          await session.rows(
            `INSERT INTO tokens (id, account_id, secret_hash, name, kind, own_status, device_names, scenes,
               allow_urls, default_target, expires_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
            [
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
            ],
          );
          return { ...token, revokedAt: null };
        },
        [`account:${token.accountId}`],
      );
    },

    async listTokens(accountId, now) {
      return (
        await db.read(
          `SELECT * FROM (
             SELECT *, row_number() OVER (PARTITION BY retired ORDER BY created_at DESC, seq DESC) AS newest
             FROM (SELECT t.*, NOT ${liveToken('$2')} AS retired
                   FROM tokens t WHERE account_id = $1) classified) listed
           WHERE NOT retired OR newest <= $3 ORDER BY created_at, seq`,
          [accountId, now, RETIRED_LISTED],
        )
      ).map(tokenOf);
    },

    async revokeToken(accountId, tokenId, now) {
      return db.transaction(async (session) => {
        const changed = await session.count(
          'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL',
          [now, tokenId, accountId],
        );
        if (changed === 0) {
          return (
            (await session.row('SELECT 1 FROM tokens WHERE id = $1 AND account_id = $2', [
              tokenId,
              accountId,
            ])) !== undefined
          );
        }
        // Deleting the queue entries first waits for a worker routing them: what it routed stays routed.
        await session.rows(
          `DELETE FROM route_queue WHERE notification_id IN
             (SELECT id FROM notifications WHERE token_id = $1 AND routed_at IS NULL AND status = 'accepted')`,
          [tokenId],
        );
        await session.rows(
          `UPDATE notifications SET status = 'dropped', reason = 'token_revoked'
           WHERE token_id = $1 AND routed_at IS NULL AND status = 'accepted'`,
          [tokenId],
        );
        return true;
      });
    },
  };
}
