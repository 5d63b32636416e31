import type { Device } from '../../model/devices.js';
import { listed } from '../queries.js';
import { addressColumns, deviceOf, type Row } from '../rows.js';
import { type DevicesPart, RETIRED_LISTED } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import { addressLock } from './migrations.js';
import { all, count, type Dialect, get, type Plan } from './plan.js';
import { settling } from './settling.js';

export function devices(d: Dialect): DevicesPart {
  const { removeDevices } = settling(d);
  const listedDevices = listed('devices', d.madeOrder, 'NOT active');
  function* activeCount(accountId: string) {
    return yield* count(
      `SELECT count(*) AS n FROM devices WHERE account_id = $1 AND active = ${d.true}`,
      accountId,
    );
  }

  return {
    async createDevice(device, maxDevices) {
      // The account's lock too: two devices registered at once cannot both take the last place.
      return d.write(
        function* (): Plan<Device | 'limit_reached' | 'device_exists'> {
          yield* requireLiveAccount(device.accountId);
          const holders = yield* all(
            `SELECT id, account_id FROM devices WHERE push_address = $1 AND active = ${d.true}`,
            device.address.key,
          );
          if (holders.some((holder) => holder.account_id === device.accountId)) return 'device_exists';
          if ((yield* activeCount(device.accountId)) >= maxDevices) return 'limit_reached';
          // The push address moves here: the device that had it is no longer its account's.
          yield* removeDevices(
            holders.map((holder) => holder.id as string),
            device.now,
            'moved',
          );
          const row = yield* get(
            `INSERT INTO devices (id, account_id, name, platform, provider, push_address, push_data, in_auto,
               active, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${d.true}, $9) RETURNING *`,
            device.id,
            device.accountId,
            device.name,
            device.platform,
            ...addressColumns(device.address),
            device.inAuto,
            device.now,
          );
          return deviceOf(row as Row);
        },
        [addressLock(device.address.key), `account:${device.accountId}`],
      );
    },

    async listDevices(accountId, options) {
      const rows = await d.read(
        options.activeOnly
          ? all(
              `SELECT * FROM devices WHERE account_id = $1 AND active = ${d.true} ORDER BY created_at, ${d.madeOrder}`,
              accountId,
            )
          : all(listedDevices, accountId, RETIRED_LISTED),
      );
      return rows.map(deviceOf);
    },

    async updateDevice(accountId, deviceId, change) {
      const row = await d.write(() =>
        get(
          `UPDATE devices SET name = coalesce($1, name), in_auto = coalesce($2, in_auto)
           WHERE id = $3 AND account_id = $4 AND active = ${d.true} RETURNING *`,
          change.name ?? null,
          change.inAuto ?? null,
          deviceId,
          accountId,
        ),
      );
      return row && deviceOf(row);
    },

    async updateOwnDevice(caller, change, now, maxDevices) {
      const address = change.address;
      // The account's lock, which a merge takes too, and, for a new push address, its lock, which
      // every registration of it takes: the devices limit and the address's one holder hold.
      return d.write(
        function* (): Plan<Device | 'device_exists' | 'limit_reached' | 'key_revoked'> {
          yield* requireLiveAccount(caller.accountId);
          const current = (yield* get('SELECT * FROM devices WHERE id = $1', caller.id)) as Row;
          if (current.key_revoked_at !== null) return 'key_revoked';
          if (address) {
            const other = yield* get(
              `SELECT 1 FROM devices WHERE push_address = $1 AND active = ${d.true} AND id <> $2`,
              address.key,
              caller.id,
            );
            if (other) return 'device_exists';
            if (!deviceOf(current).active && (yield* activeCount(caller.accountId)) >= maxDevices) {
              return 'limit_reached';
            }
            yield* all(
              `UPDATE devices SET provider = $1, push_address = $2, push_data = $3, push_since = $4,
                 active = ${d.true}, removed_at = NULL, inactive_reason = NULL WHERE id = $5`,
              ...addressColumns(address),
              now,
              caller.id,
            );
          }
          const row = yield* get(
            'UPDATE devices SET name = coalesce($1, name), in_auto = coalesce($2, in_auto) WHERE id = $3 RETURNING *',
            change.name ?? null,
            change.inAuto ?? null,
            caller.id,
          );
          return deviceOf(row as Row);
        },
        [`account:${caller.accountId}`, ...(address ? [addressLock(address.key)] : [])],
      );
    },

    async markDeviceSeen(deviceId, now) {
      await d.write(() => all('UPDATE devices SET last_seen_at = $1 WHERE id = $2', now, deviceId));
    },

    async removeOwnDevice(deviceId, now) {
      await d.write(() => removeDevices([deviceId], now, 'removed'));
    },

    async removeDevice(accountId, deviceId, now) {
      return d.write(function* () {
        const device = yield* get(
          `SELECT 1 FROM devices WHERE id = $1 AND account_id = $2 AND active = ${d.true}`,
          deviceId,
          accountId,
        );
        if (!device) return false;
        // Its device key (if it linked itself) works no more: removing a device is what revokes it.
        yield* removeDevices([deviceId], now, 'removed');
        return true;
      });
    },
  };
}
