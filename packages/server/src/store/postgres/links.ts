import type { LinkApproval } from '../../model/links.js';
import { approverLock, approverRoom, unapprovable } from '../../model/links.js';
import { liveToken } from '../queries.js';
import { accountFromRow, addressData, deviceOf, linkRequestOf, type Row } from '../rows.js';
import type { LinksPart } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import type { PostgresConnection } from './connection.js';
import { removeDevices } from './settling.js';

export function postgresLinks(db: PostgresConnection): LinksPart {
  const request = async (id: string) => {
    const [row] = await db.read('SELECT * FROM link_requests WHERE id = $1', [id]);
    return row ? linkRequestOf(row) : undefined;
  };

  return {
    async createLinkRequest(link) {
      const { device } = link;
      // The device id's and push address's locks: two requests for one device cannot both be made.
      return db.transaction(
        async (session) => {
          const taken = await session.row(
            `SELECT 1 FROM devices WHERE active AND id <> $4 AND (client_id = $1 OR push_token = $2)
             UNION ALL
             SELECT 1 FROM link_requests
               WHERE state = 'pending' AND expires_at > $3 AND (client_id = $1 OR push_token = $2)
             LIMIT 1`,
            [device.clientId, device.address.key, link.now, link.sourceDeviceId ?? ''],
          );
          if (taken) return 'device_exists' as const;
          await session.rows(
            `INSERT INTO link_requests (id, code_hash, secret_hash, key_hash, sealed_key, client_id, name, platform,
               in_auto, provider, push_token, web_push, source_device_id, state, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', $14, $15)`,
            [
              link.id,
              link.codeHash,
              link.secretHash,
              link.keyHash,
              link.sealedKey,
              device.clientId,
              device.name,
              device.platform,
              device.inAuto,
              device.address.provider,
              device.address.key,
              addressData(device.address),
              link.sourceDeviceId,
              link.now,
              link.expiresAt,
            ],
          );
          return 'created' as const;
        },
        [`link_client:${device.clientId}`, `push_token:${device.address.key}`],
      );
    },

    async accountUse(accountId, exceptDeviceId, now) {
      const [row] = await db.read(
        `SELECT (SELECT count(*) FROM tokens WHERE account_id = $1 AND ${liveToken('$3')}) AS tokens,
           (SELECT count(*) FROM devices WHERE account_id = $1 AND active AND id <> $2) AS devices`,
        [accountId, exceptDeviceId, now],
      );
      return { tokens: Number(row?.tokens), otherDevices: Number(row?.devices) };
    },

    async findLinkSecret(secretHash) {
      const [row] = await db.read('SELECT id FROM link_requests WHERE secret_hash = $1', [secretHash]);
      return row?.id as string | undefined;
    },

    async findDeviceKey(keyHash) {
      const [row] = await db.read(
        'SELECT row_to_json(d) AS device, row_to_json(a) AS account FROM devices d JOIN accounts a ON a.id = d.account_id WHERE d.key_hash = $1',
        [keyHash],
      );
      if (!row) return undefined;
      const device = row.device as Row;
      return {
        device: deviceOf(device),
        account: accountFromRow(row.account as Row),
        revoked: device.key_revoked_at !== null,
      };
    },

    getLinkRequest: request,

    async takeSealedKey(id) {
      return db.transaction(async (session) => {
        const row = await session.row(
          "SELECT sealed_key FROM link_requests WHERE id = $1 AND state = 'approved' FOR UPDATE",
          [id],
        );
        const sealed = (row?.sealed_key as string | null | undefined) ?? null;
        if (sealed !== null)
          await session.rows('UPDATE link_requests SET sealed_key = NULL WHERE id = $1', [id]);
        return sealed;
      });
    },

    async cancelLinkRequest(id) {
      const [row] = await db.transaction((session) =>
        session.rows(
          `UPDATE link_requests SET state = CASE WHEN state = 'pending' THEN 'cancelled' ELSE state END
           WHERE id = $1 RETURNING *`,
          [id],
        ),
      );
      return row ? linkRequestOf(row) : undefined;
    },

    async approveLink({ codeHash, accountId, deviceId, now, limits }) {
      // The request's device, to take its locks: a request's device id and push address never change.
      const [requested] =
        codeHash === undefined
          ? []
          : await db.read('SELECT client_id, push_token FROM link_requests WHERE code_hash = $1', [codeHash]);
      // The account's lock: its wrong codes, approvals and devices are counted by one approval at a
      // time. The device id's and the push address's, which every registration of them takes: a
      // registration of the same phone in another account at once waits, then moves it (or is moved).
      const locks = [`account:${accountId}`];
      if (requested) locks.push(`link_client:${requested.client_id}`, `push_token:${requested.push_token}`);
      return db.transaction(async (session): Promise<LinkApproval> => {
        await requireLiveAccount(session, accountId);
        const since = now - limits.windowMs;
        const wrong = (
          await session.rows(
            'SELECT at FROM link_wrong_codes WHERE account_id = $1 AND at > $2 ORDER BY at',
            [accountId, since],
          )
        ).map((row) => Number(row.at));
        const locked = approverLock(wrong, limits, now);
        if (locked) return locked;
        const row =
          codeHash === undefined
            ? undefined
            : await session.row('SELECT * FROM link_requests WHERE code_hash = $1 FOR UPDATE', [codeHash]);
        if (!row) {
          await session.rows('INSERT INTO link_wrong_codes (account_id, at) VALUES ($1, $2)', [
            accountId,
            now,
          ]);
          return { kind: 'no_code' };
        }
        const link = linkRequestOf(row);
        const refused = unapprovable(link, now);
        if (refused) return refused;
        const approvals = (
          await session.rows(
            `SELECT approved_at FROM link_requests WHERE approved_account_id = $1 AND approved_at > $2
             ORDER BY approved_at`,
            [accountId, since],
          )
        ).map((approval) => Number(approval.approved_at));
        const active = (await session.row(
          'SELECT count(*) AS n FROM devices WHERE account_id = $1 AND active',
          [accountId],
        )) as Row;
        const full = approverRoom(approvals, Number(active.n), limits, now);
        if (full) return full;
        const { device } = link;
        // A device switching accounts leaves the one it proved: what waits for it there is
        // skipped, and its key there works no more.
        if (link.sourceDeviceId !== null) await removeDevices(session, [link.sourceDeviceId], now, 'moved');
        // Registered elsewhere since the request was made: it moves here, as a push token does,
        // and is no longer the other account's.
        const holders = await session.rows(
          'SELECT id FROM devices WHERE active AND (client_id = $1 OR push_token = $2)',
          [device.clientId, device.address.key],
        );
        await removeDevices(
          session,
          holders.map((holder) => holder.id as string),
          now,
          'moved',
        );
        const inserted = await session.row(
          `INSERT INTO devices (id, account_id, name, platform, provider, push_token, web_push, client_id, key_hash,
             in_auto, active, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, true, $11) RETURNING *`,
          [
            deviceId,
            accountId,
            device.name,
            device.platform,
            device.address.provider,
            device.address.key,
            addressData(device.address),
            device.clientId,
            row.key_hash,
            device.inAuto,
            now,
          ],
        );
        await session.rows(
          `UPDATE link_requests SET state = 'approved', approved_account_id = $1, approved_device_id = $2,
             approved_at = $3 WHERE id = $4`,
          [accountId, deviceId, now, link.id],
        );
        return { kind: 'approved', device: deviceOf(inserted as Row) };
      }, locks);
    },
  };
}
