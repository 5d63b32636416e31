import type { Device } from '../../model/devices.js';
import { addressData, deviceOf, type Row } from '../rows.js';
import { type DevicesPart, RETIRED_LISTED } from '../store.js';
import { requireLiveAccount } from './accounts.js';
import { int, type SqliteConnection } from './connection.js';
import { removeDevice } from './settling.js';

/** The devices sends may reach (and a send token may list), oldest first. */
export function activeDevices(db: SqliteConnection, accountId: string): Device[] {
  return db
    .all('SELECT * FROM devices WHERE account_id = ? AND active = 1 ORDER BY created_at, rowid', accountId)
    .map(deviceOf);
}

export function sqliteDevices(db: SqliteConnection): DevicesPart {
  const activeCount = (accountId: string) =>
    Number(
      (db.get('SELECT count(*) AS n FROM devices WHERE account_id = ? AND active = 1', accountId) as Row).n,
    );
  const activeDevice = (accountId: string, deviceId: string) =>
    db.get('SELECT * FROM devices WHERE id = ? AND account_id = ? AND active = 1', deviceId, accountId);

  return {
    async createDevice(device, maxDevices) {
      return db.write((): Device | 'limit_reached' | 'device_exists' => {
        requireLiveAccount(db, device.accountId);
        const holders = db.all(
          'SELECT id, account_id FROM devices WHERE push_token = ? AND active = 1',
          device.address.key,
        );
        if (holders.some((holder) => holder.account_id === device.accountId)) return 'device_exists';
        if (activeCount(device.accountId) >= maxDevices) return 'limit_reached';
        // The push address moves here: the device that had it is no longer its account's.
        for (const holder of holders) removeDevice(db, holder.id as string, device.now, 'moved');
        db.run(
          `INSERT INTO devices (id, account_id, name, platform, provider, push_token, web_push, in_auto, active,
             created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
          device.id,
          device.accountId,
          device.name,
          device.platform,
          device.address.provider,
          device.address.key,
          addressData(device.address),
          int(device.inAuto),
          device.now,
        );
        return deviceOf(db.get('SELECT * FROM devices WHERE id = ?', device.id) as Row);
      });
    },

    async listDevices(accountId, options) {
      if (options.activeOnly) return activeDevices(db, accountId);
      return db
        .all(
          `SELECT * FROM (
             SELECT d.*, d.rowid AS r,
               row_number() OVER (PARTITION BY active ORDER BY created_at DESC, rowid DESC) AS newest
             FROM devices d WHERE account_id = ?)
           WHERE active = 1 OR newest <= ? ORDER BY created_at, r`,
          accountId,
          RETIRED_LISTED,
        )
        .map(deviceOf);
    },

    async updateDevice(accountId, deviceId, change) {
      return db.write(() => {
        const row = activeDevice(accountId, deviceId);
        if (!row) return undefined;
        const device = deviceOf(row);
        const name = change.name ?? device.name;
        const inAuto = change.inAuto ?? device.inAuto;
        db.run('UPDATE devices SET name = ?, in_auto = ? WHERE id = ?', name, int(inAuto), deviceId);
        return { ...device, name, inAuto };
      });
    },

    async updateOwnDevice(caller, change, now, maxDevices) {
      return db.write((): Device | 'device_exists' | 'limit_reached' | 'key_revoked' => {
        requireLiveAccount(db, caller.accountId);
        const row = db.get('SELECT * FROM devices WHERE id = ?', caller.id) as Row;
        if (row.key_revoked_at !== null) return 'key_revoked';
        const device = deviceOf(row);
        const address = change.address;
        if (address) {
          const other = db.get(
            'SELECT 1 FROM devices WHERE push_token = ? AND active = 1 AND id <> ?',
            address.key,
            device.id,
          );
          if (other) return 'device_exists';
          if (!device.active && activeCount(device.accountId) >= maxDevices) return 'limit_reached';
          db.run(
            `UPDATE devices SET provider = ?, push_token = ?, web_push = ?, push_since = ?, active = 1,
               removed_at = NULL, inactive_reason = NULL WHERE id = ?`,
            address.provider,
            address.key,
            addressData(address),
            now,
            device.id,
          );
        }
        db.run(
          'UPDATE devices SET name = ?, in_auto = ? WHERE id = ?',
          change.name ?? device.name,
          int(change.inAuto ?? device.inAuto),
          device.id,
        );
        return deviceOf(db.get('SELECT * FROM devices WHERE id = ?', device.id) as Row);
      });
    },

    async markDeviceSeen(deviceId, now) {
      await db.write(() => db.run('UPDATE devices SET last_seen_at = ? WHERE id = ?', now, deviceId));
    },

    async removeOwnDevice(deviceId, now) {
      await db.write(() => removeDevice(db, deviceId, now, 'removed'));
    },

    async removeDevice(accountId, deviceId, now) {
      return db.write(() => {
        if (!activeDevice(accountId, deviceId)) return false;
        // Its device key (if it linked itself) works no more: removing a device is what revokes it.
        removeDevice(db, deviceId, now, 'removed');
        return true;
      });
    },
  };
}
