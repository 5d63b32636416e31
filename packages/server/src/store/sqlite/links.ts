import type { LinkApproval } from '../../model/links.js';
import { approverLock, approverRoom, unapprovable } from '../../model/links.js';
import { liveToken } from '../queries.js';
import { addressData, deviceOf, joinedAccountFromRow, linkRequestOf, type Row } from '../rows.js';
import type { LinksPart } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import { int, type SqliteConnection } from './connection.js';
import { removeDevice } from './settling.js';

export function sqliteLinks(db: SqliteConnection): LinksPart {
  const request = (id: string) => {
    const row = db.get('SELECT * FROM link_requests WHERE id = ?', id);
    return row ? linkRequestOf(row) : undefined;
  };

  return {
    async createLinkRequest(link) {
      return db.write(() => {
        const { device } = link;
        const taken = db.get(
          `SELECT 1 FROM devices WHERE active = 1 AND id <> ? AND (client_id = ? OR push_token = ?)
           UNION ALL
           SELECT 1 FROM link_requests WHERE state = 'pending' AND expires_at > ? AND (client_id = ? OR push_token = ?)
           LIMIT 1`,
          link.sourceDeviceId ?? '',
          device.clientId,
          device.address.key,
          link.now,
          device.clientId,
          device.address.key,
        );
        if (taken) return 'device_exists';
        db.run(
          `INSERT INTO link_requests (id, code_hash, secret_hash, key_hash, sealed_key, client_id, name, platform,
             in_auto, provider, push_token, web_push, source_device_id, state, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
          link.id,
          link.codeHash,
          link.secretHash,
          link.keyHash,
          link.sealedKey,
          device.clientId,
          device.name,
          device.platform,
          int(device.inAuto),
          device.address.provider,
          device.address.key,
          addressData(device.address),
          link.sourceDeviceId,
          link.now,
          link.expiresAt,
        );
        return 'created';
      });
    },

    async accountUse(accountId, exceptDeviceId, now) {
      const tokens = db.get(
        `SELECT count(*) AS n FROM tokens WHERE account_id = ? AND ${liveToken('?')}`,
        accountId,
        now,
      ) as Row;
      const devices = db.get(
        'SELECT count(*) AS n FROM devices WHERE account_id = ? AND active = 1 AND id <> ?',
        accountId,
        exceptDeviceId,
      ) as Row;
      return { tokens: Number(tokens.n), otherDevices: Number(devices.n) };
    },

    async findLinkSecret(secretHash) {
      return db.get('SELECT id FROM link_requests WHERE secret_hash = ?', secretHash)?.id as
        | string
        | undefined;
    },

    async findDeviceKey(keyHash) {
      const row = db.get(
        `SELECT d.*, a.id AS a_id, a.name AS a_name, a.key_generation AS a_key_generation,
           a.created_at AS a_created_at, a.deleted_at AS a_deleted_at, a.merged_into AS a_merged_into
         FROM devices d JOIN accounts a ON a.id = d.account_id WHERE d.key_hash = ?`,
        keyHash,
      );
      if (!row) return undefined;
      return {
        device: deviceOf(row),
        account: joinedAccountFromRow(row),
        revoked: row.key_revoked_at !== null,
      };
    },

    async getLinkRequest(id) {
      return request(id);
    },

    async takeSealedKey(id) {
      return db.write(() => {
        const row = db.get("SELECT sealed_key FROM link_requests WHERE id = ? AND state = 'approved'", id);
        const sealed = (row?.sealed_key as string | null | undefined) ?? null;
        if (sealed !== null) db.run('UPDATE link_requests SET sealed_key = NULL WHERE id = ?', id);
        return sealed;
      });
    },

    async cancelLinkRequest(id) {
      return db.write(() => {
        db.run("UPDATE link_requests SET state = 'cancelled' WHERE id = ? AND state = 'pending'", id);
        return request(id);
      });
    },

    async approveLink({ codeHash, accountId, deviceId, now, limits }) {
      return db.write((): LinkApproval => {
        requireLiveAccount(db, accountId);
        const since = now - limits.windowMs;
        const wrong = db
          .all(
            'SELECT at FROM link_wrong_codes WHERE account_id = ? AND at > ? ORDER BY at',
            accountId,
            since,
          )
          .map((row) => Number(row.at));
        const locked = approverLock(wrong, limits, now);
        if (locked) return locked;
        const row =
          codeHash === undefined
            ? undefined
            : db.get('SELECT * FROM link_requests WHERE code_hash = ?', codeHash);
        if (!row) {
          db.run('INSERT INTO link_wrong_codes (account_id, at) VALUES (?, ?)', accountId, now);
          return { kind: 'no_code' };
        }
        const link = linkRequestOf(row);
        const refused = unapprovable(link, now);
        if (refused) return refused;
        const approvals = db
          .all(
            'SELECT approved_at FROM link_requests WHERE approved_account_id = ? AND approved_at > ? ORDER BY approved_at',
            accountId,
            since,
          )
          .map((approval) => Number(approval.approved_at));
        const active = db.get(
          'SELECT count(*) AS n FROM devices WHERE account_id = ? AND active = 1',
          accountId,
        ) as Row;
        const full = approverRoom(approvals, Number(active.n), limits, now);
        if (full) return full;
        // A device switching accounts leaves the one it proved: what waits for it there is
        // skipped, and its key there works no more.
        if (link.sourceDeviceId !== null) removeDevice(db, link.sourceDeviceId, now, 'moved');
        // Registered elsewhere since the request was made (an account key's POST /v1/devices): it
        // moves here, as a registration moves a push token, and is no longer the other account's.
        for (const holder of db.all(
          'SELECT id FROM devices WHERE active = 1 AND (client_id = ? OR push_token = ?)',
          link.device.clientId,
          link.device.address.key,
        )) {
          removeDevice(db, holder.id as string, now, 'moved');
        }
        const { device } = link;
        db.run(
          `INSERT INTO devices (id, account_id, name, platform, provider, push_token, web_push, client_id, key_hash,
             in_auto, active, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
          deviceId,
          accountId,
          device.name,
          device.platform,
          device.address.provider,
          device.address.key,
          addressData(device.address),
          device.clientId,
          row.key_hash,
          int(device.inAuto),
          now,
        );
        db.run(
          `UPDATE link_requests SET state = 'approved', approved_account_id = ?, approved_device_id = ?, approved_at = ?
           WHERE id = ?`,
          accountId,
          deviceId,
          now,
          link.id,
        );
        return {
          kind: 'approved',
          device: deviceOf(db.get('SELECT * FROM devices WHERE id = ?', deviceId) as Row),
        };
      });
    },
  };
}
