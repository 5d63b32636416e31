import type { InactiveReason } from '@foxbell/sdk/contract';
import * as plans from '../sql/settling.js';
import type { SqliteConnection } from './connection.js';
import { SQLITE_PHRASES as d, run } from './dialect.js';

// sql/settling.ts's plans, run at once inside the transaction that ends leases.

/** See sql/settling.ts's skipWaiting. False when the device was not active. */
export function deactivateDevice(db: SqliteConnection, deviceId: string, now: number, why: InactiveReason) {
  const { notifications, devices } = run(db, plans.skipWaiting(d, [deviceId], now, why));
  run(db, plans.settle(d, notifications));
  return devices.length > 0;
}

export const settle = (db: SqliteConnection, notificationId: string) =>
  run(db, plans.settle(d, [notificationId]));
