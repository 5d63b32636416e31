import type { Device } from '../../model/devices.js';
import { addressData, deviceOf, type Row } from '../rows.js';
import { type DevicesPart, RETIRED_LISTED } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import type { PostgresConnection, Session } from './connection.js';
import { removeDevices } from './settling.js';

const activeCount = async (session: Session, accountId: string) =>
  Number(
    (
      (await session.row('SELECT count(*) AS n FROM devices WHERE account_id = $1 AND active', [
        accountId,
      ])) as Row
    ).n,
  );

export function postgresDevices(db: PostgresConnection): DevicesPart {
  return {
    async createDevice(device, maxDevices) {
      // The push token's lock: two accounts registering one phone at once cannot both succeed. The
      // account's: two devices registered at once cannot both take the last place.
      return db.transaction(
        async (session): Promise<Device | 'limit_reached' | 'device_exists'> => {
          await requireLiveAccount(session, device.accountId);
          const holders = await session.rows(
            'SELECT id, account_id FROM devices WHERE push_token = $1 AND active',
            [device.address.key],
          );
          if (holders.some((holder) => holder.account_id === device.accountId)) return 'device_exists';
          if ((await activeCount(session, device.accountId)) >= maxDevices) return 'limit_reached';
          // The push address moves here: the device that had it is no longer its account's.
          await removeDevices(
            session,
            holders.map((holder) => holder.id as string),
            device.now,
            'moved',
          );
          const row = await session.row(
            `INSERT INTO devices (id, account_id, name, platform, provider, push_token, web_push, in_auto, active,
               created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, true, $9) RETURNING *`,
            [
              device.id,
              device.accountId,
              device.name,
              device.platform,
              device.address.provider,
              device.address.key,
              addressData(device.address),
              device.inAuto,
              device.now,
            ],
          );
          return deviceOf(row as Row);
        },
        [`push_token:${device.address.key}`, `account:${device.accountId}`],
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

    async updateOwnDevice(caller, change, now, maxDevices) {
      const address = change.address;
      // The account's lock, which a merge takes too, and, for a new push address, its lock, which
      // every registration of it takes: the devices limit and the address's one holder hold.
      return db.transaction(
        async (session): Promise<Device | 'device_exists' | 'limit_reached' | 'key_revoked'> => {
          await requireLiveAccount(session, caller.accountId);
          const current = (await session.row('SELECT * FROM devices WHERE id = $1', [caller.id])) as Row;
          if (current.key_revoked_at !== null) return 'key_revoked';
          if (address) {
            const other = await session.row(
              'SELECT 1 FROM devices WHERE push_token = $1 AND active AND id <> $2',
              [address.key, caller.id],
            );
            if (other) return 'device_exists';
            if (!deviceOf(current).active && (await activeCount(session, caller.accountId)) >= maxDevices) {
              return 'limit_reached';
            }
            await session.rows(
              `UPDATE devices SET provider = $1, push_token = $2, web_push = $3, push_since = $4, active = true,
                 removed_at = NULL, inactive_reason = NULL WHERE id = $5`,
              [address.provider, address.key, addressData(address), now, caller.id],
            );
          }
          const row = await session.row(
            `UPDATE devices SET name = COALESCE($1, name), in_auto = COALESCE($2, in_auto) WHERE id = $3
             RETURNING *`,
            [change.name ?? null, change.inAuto ?? null, caller.id],
          );
          return deviceOf(row as Row);
        },
        [`account:${caller.accountId}`, ...(address ? [`push_token:${address.key}`] : [])],
      );
    },

    async markDeviceSeen(deviceId, now) {
      await db.transaction((session) =>
        session.rows('UPDATE devices SET last_seen_at = $1 WHERE id = $2', [now, deviceId]),
      );
    },

    async removeOwnDevice(deviceId, now) {
      await db.transaction((session) => removeDevices(session, [deviceId], now, 'removed'));
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
        // Its device key (if it linked itself) works no more: removing a device is what revokes it.
        await removeDevices(session, [deviceId], now, 'removed');
        return true;
      });
    },
  };
}
