import type { LinkApproval } from '../../model/links.js';
import { approverLock, approverRoom, unapprovable } from '../../model/links.js';
import { ACCOUNT_COLUMNS, liveToken } from '../queries.js';
import { accountFromRow, addressColumns, deviceOf, linkRequestOf, type Row } from '../rows.js';
import type { LinksPart } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import { addressLock } from './migrations.js';
import { all, count, type Dialect, get, type Plan } from './plan.js';
import { settling } from './settling.js';

/** Link requests: a device asking to join an account, and the account approving it by its code. */
export function links(d: Dialect): LinksPart {
  const { removeDevices } = settling(d);

  return {
    async createLinkRequest(link) {
      const { device } = link;
      // The device id's and push address's locks: two requests for one device cannot both be made.
      return d.write(
        function* () {
          const taken = yield* get(
            `SELECT 1 FROM devices WHERE active = ${d.true} AND id <> $4 AND (client_id = $1 OR push_address = $2)
             UNION ALL
             SELECT 1 FROM link_requests
               WHERE state = 'pending' AND expires_at > $3 AND (client_id = $1 OR push_address = $2)
             LIMIT 1`,
            device.clientId,
            device.address.key,
            link.now,
            link.sourceDeviceId ?? '',
          );
          if (taken) return 'device_exists' as const;
          yield* all(
            `INSERT INTO link_requests (id, code_hash, secret_hash, key_hash, sealed_key, client_id, name, platform,
               in_auto, provider, push_address, push_data, source_device_id, state, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', $14, $15)`,
            link.id,
            link.codeHash,
            link.secretHash,
            link.keyHash,
            link.sealedKey,
            device.clientId,
            device.name,
            device.platform,
            device.inAuto,
            ...addressColumns(device.address),
            link.sourceDeviceId,
            link.now,
            link.expiresAt,
          );
          return 'created' as const;
        },
        [`link_client:${device.clientId}`, addressLock(device.address.key)],
      );
    },

    async accountUse(accountId, exceptDeviceId, now) {
      const row = await d.read(
        get(
          `SELECT (SELECT count(*) FROM tokens WHERE account_id = $1 AND ${liveToken('$3')}) AS tokens,
             (SELECT count(*) FROM devices WHERE account_id = $1 AND active = ${d.true} AND id <> $2) AS devices`,
          accountId,
          exceptDeviceId,
          now,
        ),
      );
      return { tokens: Number(row?.tokens), otherDevices: Number(row?.devices) };
    },

    async findLinkSecret(secretHash) {
      const row = await d.read(get('SELECT id FROM link_requests WHERE secret_hash = $1', secretHash));
      return row?.id as string | undefined;
    },

    async findDeviceKey(keyHash) {
      const row = await d.read(
        get(
          `SELECT d.*, ${ACCOUNT_COLUMNS} FROM devices d JOIN accounts a ON a.id = d.account_id WHERE d.key_hash = $1`,
          keyHash,
        ),
      );
      if (!row) return undefined;
      return {
        device: deviceOf(row),
        account: accountFromRow(row, 'a_'),
        revoked: row.key_revoked_at !== null,
      };
    },

    async getLinkRequest(id) {
      const row = await d.read(get('SELECT * FROM link_requests WHERE id = $1', id));
      return row ? linkRequestOf(row) : undefined;
    },

    async takeSealedKey(id) {
      return d.write(function* () {
        const row = yield* get(
          `SELECT sealed_key FROM link_requests WHERE id = $1 AND state = 'approved'${d.forUpdate}`,
          id,
        );
        const sealed = (row?.sealed_key as string | null | undefined) ?? null;
        if (sealed !== null) yield* all('UPDATE link_requests SET sealed_key = NULL WHERE id = $1', id);
        return sealed;
      });
    },

    async cancelLinkRequest(id) {
      const row = await d.write(() =>
        get(
          `UPDATE link_requests SET state = CASE WHEN state = 'pending' THEN 'cancelled' ELSE state END
           WHERE id = $1 RETURNING *`,
          id,
        ),
      );
      return row ? linkRequestOf(row) : undefined;
    },

    async approveLink({ codeHash, accountId, deviceId, now, limits }) {
      // The account's lock: its wrong codes, approvals and devices are counted by one approval at a
      // time. The device id's and the push address's, which every registration of them takes: a
      // registration of the same phone in another account at once waits, then moves it (or is
      // moved). The request's device, to name them, is read first: it never changes.
      const locks = async () => {
        const requested =
          codeHash === undefined
            ? undefined
            : await d.read(
                get('SELECT client_id, push_address FROM link_requests WHERE code_hash = $1', codeHash),
              );
        const device = requested
          ? [`link_client:${requested.client_id}`, addressLock(requested.push_address as string)]
          : [];
        return [`account:${accountId}`, ...device];
      };
      return d.write(function* (): Plan<LinkApproval> {
        yield* requireLiveAccount(accountId);
        const since = now - limits.windowMs;
        const wrong = yield* all(
          'SELECT at FROM link_wrong_codes WHERE account_id = $1 AND at > $2 ORDER BY at',
          accountId,
          since,
        );
        const locked = approverLock(
          wrong.map((row) => Number(row.at)),
          limits,
          now,
        );
        if (locked) return locked;
        const row =
          codeHash === undefined
            ? undefined
            : yield* get(`SELECT * FROM link_requests WHERE code_hash = $1${d.forUpdate}`, codeHash);
        if (!row) {
          yield* all('INSERT INTO link_wrong_codes (account_id, at) VALUES ($1, $2)', accountId, now);
          return { kind: 'no_code' };
        }
        const link = linkRequestOf(row);
        const refused = unapprovable(link, now);
        if (refused) return refused;
        const approvals = yield* all(
          `SELECT approved_at FROM link_requests WHERE approved_account_id = $1 AND approved_at > $2
           ORDER BY approved_at`,
          accountId,
          since,
        );
        const active = yield* count(
          `SELECT count(*) AS n FROM devices WHERE account_id = $1 AND active = ${d.true}`,
          accountId,
        );
        const full = approverRoom(
          approvals.map((approval) => Number(approval.approved_at)),
          active,
          limits,
          now,
        );
        if (full) return full;
        const { device } = link;
        // A device switching accounts leaves the one it proved: what waits for it there is
        // skipped, and its key there works no more.
        if (link.sourceDeviceId !== null) yield* removeDevices([link.sourceDeviceId], now, 'moved');
        // Registered elsewhere since the request was made (an account key's POST /v1/devices): it
        // moves here, as a registration moves a push address, and is no longer the other account's.
        const holders = yield* all(
          `SELECT id FROM devices WHERE active = ${d.true} AND (client_id = $1 OR push_address = $2)`,
          device.clientId,
          device.address.key,
        );
        yield* removeDevices(
          holders.map((holder) => holder.id as string),
          now,
          'moved',
        );
        const inserted = yield* get(
          `INSERT INTO devices (id, account_id, name, platform, provider, push_address, push_data, client_id, key_hash,
             in_auto, active, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ${d.true}, $11) RETURNING *`,
          deviceId,
          accountId,
          device.name,
          device.platform,
          ...addressColumns(device.address),
          device.clientId,
          row.key_hash,
          device.inAuto,
          now,
        );
        yield* all(
          `UPDATE link_requests SET state = 'approved', approved_account_id = $1, approved_device_id = $2,
             approved_at = $3 WHERE id = $4`,
          accountId,
          deviceId,
          now,
          link.id,
        );
        return { kind: 'approved', device: deviceOf(inserted as Row) };
      }, locks);
    },
  };
}
