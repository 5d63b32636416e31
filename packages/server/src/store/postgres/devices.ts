import { deviceOf, type Row } from '../rows.js';
import { type Device, type DevicesPart, RETIRED_LISTED } from '../store.js';
import type { PostgresConnection } from './connection.js';
import { deactivateDevices } from './settling.js';

export function postgresDevices(db: PostgresConnection): DevicesPart {
  return {
    async createDevice(device, maxDevices) {
      // The push token's lock: two accounts registering one phone at once cannot both succeed. The
      // account's: two devices registered at once cannot both take the last place.
      return db.transaction(
        async (session): Promise<Device | 'limit_reached' | 'device_exists'> => {
          const holders = await session.rows(
            'SELECT id, account_id FROM devices WHERE push_token = $1 AND active',
            [device.pushToken],
          );
          if (holders.some((holder) => holder.account_id === device.accountId)) return 'device_exists';
          const active = (await session.row(
            'SELECT count(*) AS n FROM devices WHERE account_id = $1 AND active',
            [device.accountId],
          )) as Row;
          if (Number(active.n) >= maxDevices) return 'limit_reached';
          await deactivateDevices(
            session,
            holders.map((holder) => holder.id as string),
            device.now,
          );
          const row = await session.row(
            `INSERT INTO devices (id, account_id, name, platform, push_token, web_push, in_auto, active, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, true, $8) RETURNING *`,
            [
              device.id,
              device.accountId,
              device.name,
              device.platform,
              device.pushToken,
              device.webPush === null ? null : JSON.stringify(device.webPush),
              device.inAuto,
              device.now,
            ],
          );
          return deviceOf(row as Row);
        },
        [`push_token:${device.pushToken}`, `account:${device.accountId}`],
      );
    },

    async listDevices(accountId, options) {
      return (
        await db.read(
          options.activeOnly
            ? 'SELECT * FROM devices WHERE account_id = $1 AND active ORDER BY created_at, seq'
            : `SELECT * FROM (
                 SELECT d.*, row_number() OVER (PARTITION BY active ORDER BY created_at DESC, seq DESC) AS newest
                 FROM devices d WHERE account_id = $1) listed
               WHERE active OR newest <= $2 ORDER BY created_at, seq`,
          options.activeOnly ? [accountId] : [accountId, RETIRED_LISTED],
        )
      ).map(deviceOf);
    },

    async updateDevice(accountId, deviceId, change) {
      return db.transaction(async (session) => {
        const row = await session.row(
          `UPDATE devices SET name = coalesce($1, name), in_auto = coalesce($2, in_auto)
           WHERE id = $3 AND account_id = $4 AND active RETURNING *`,
          [change.name ?? null, change.inAuto ?? null, deviceId, accountId],
        );
        return row && deviceOf(row);
      });
    },

    async updateOwnDevice(deviceId, change, now) {
      const push = change.push;
      return db.transaction(
        async (session): Promise<Device | 'device_exists'> => {
          if (push) {
            const other = await session.row(
              'SELECT 1 FROM devices WHERE push_token = $1 AND active AND id <> $2',
              [push.pushToken, deviceId],
            );
            if (other) return 'device_exists';
            await session.rows(
              `UPDATE devices SET push_token = $1, web_push = $2, push_since = $3, active = true, removed_at = NULL
               WHERE id = $4`,
              [push.pushToken, push.webPush === null ? null : JSON.stringify(push.webPush), now, deviceId],
            );
          }
          const row = await session.row(
            `UPDATE devices SET name = COALESCE($1, name), in_auto = COALESCE($2, in_auto) WHERE id = $3
             RETURNING *`,
            [change.name ?? null, change.inAuto ?? null, deviceId],
          );
          return deviceOf(row as Row);
        },
        push ? [`push_token:${push.pushToken}`] : [],
      );
    },

    async removeOwnDevice(deviceId, now) {
      await db.transaction(async (session) => {
        await deactivateDevices(session, [deviceId], now);
        await session.rows(
          'UPDATE devices SET key_revoked_at = $1 WHERE id = $2 AND key_revoked_at IS NULL',
          [now, deviceId],
        );
      });
    },

    async removeDevice(accountId, deviceId, now) {
      return db.transaction(async (session) => {
        if (
          !(await session.row('SELECT 1 FROM devices WHERE id = $1 AND account_id = $2 AND active', [
            deviceId,
            accountId,
          ]))
        ) {
          return false;
        }
        await deactivateDevices(session, [deviceId], now);
        // Its device key (if it linked itself) works no more: removing a device is what revokes it.
        await session.rows('UPDATE devices SET key_revoked_at = $1 WHERE id = $2 AND key_hash IS NOT NULL', [
          now,
          deviceId,
        ]);
        return true;
      });
    },
  };
}
