import { fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import { makeDataDirPrivate } from '../data-dir.js';
import type { Store } from '../store.js';
import { SqliteConnection } from './connection.js';
import { sqliteCredentials } from './credentials.js';
import { DatabaseSync, inTransaction, pragmaValue, sqliteStorageCode } from './database.js';
import { sqliteDevices } from './devices.js';
import { sqliteLeases } from './leases.js';
import { sqliteRecords } from './records.js';
import { sqlitePurge } from './retention.js';
import { sqliteRouting } from './routing.js';
import { SQLITE_MIGRATIONS } from './schema.js';
import { sqliteSends } from './sends.js';
import { sqliteSettings } from './settings.js';

export interface SqliteStoreOptions {
  /** A directory for `foxbell.db`, or `:memory:` for a database that lives as long as the store. */
  dataDir: string;
  /**
   * `api` (the default) serves sends and keeps copies of rate windows, counts and credentials,
   * so only one `api` store may have a database open: a second one fails with
   * `DataDirInUseError`. `worker` only delivers; any number may share the database with it.
   */
  role?: 'api' | 'worker';
}

/** Another process already serves sends from this data directory. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(`another foxbell-server is serving sends from ${dataDir}; stop it, or run this one as a worker`);
    this.name = 'DataDirInUseError';
  }
}

/**
 * The embedded store: one SQLite file in WAL mode. No write is reported done before it is on
 * disk (see SqliteConnection), and sends arriving together share one commit.
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  if (options.dataDir === ':memory:') {
    return assemble(new SqliteConnection(prepare(new DatabaseSync(':memory:')), undefined), undefined);
  }
  makeDataDirPrivate(options.dataDir);
  const apiLock = (options.role ?? 'api') === 'api' ? lockApi(options.dataDir) : undefined;
  const file = path.join(options.dataDir, 'foxbell.db');
  const db = prepare(new DatabaseSync(file));
  const wal = openSync(`${file}-wal`, 'r+');
  makeDataDirPrivate(options.dataDir);
  // The new files' directory entries, and everything the migrations wrote.
  for (const fd of [openSync(options.dataDir, 'r'), wal]) fsyncSync(fd);
  return assemble(new SqliteConnection(db, wal), apiLock);
}

/** The store from its parts, one per concern, all on one connection. */
function assemble(db: SqliteConnection, apiLock: DatabaseSync | undefined): Store {
  const sends = sqliteSends(db);
  return {
    ...sqliteCredentials(db),
    ...sqliteDevices(db),
    acceptSend: sends.acceptSend,
    monthlyCount: sends.monthlyCount,
    ...sqliteRecords(db),
    ...sqliteRouting(db),
    ...sqliteLeases(db),
    ...sqliteSettings(db),
    ...sqlitePurge(db),
    async close() {
      // Sends handed over but not yet committed (waiting for an fsync to end) are committed first.
      await sends.drained();
      await db.close();
      apiLock?.close();
    },
  };
}

/**
 * Holds an exclusive lock on `api.lock` for the life of the store. The operating system drops it
 * when the process ends, however it ends, so a crash never leaves a stale lock behind.
 */
function lockApi(dataDir: string): DatabaseSync {
  const lock = new DatabaseSync(path.join(dataDir, 'api.lock'), { timeout: 0 });
  try {
    lock.exec('PRAGMA locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS held (at INTEGER); DELETE FROM held;');
    return lock;
  } catch (error) {
    lock.close();
    if (sqliteStorageCode(error) === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir);
    throw error;
  }
}

function prepare(db: DatabaseSync): DatabaseSync {
  db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000',
  );
  migrate(db);
  return db;
}

function migrate(db: DatabaseSync): void {
  const applied = Number(pragmaValue(db, 'user_version'));
  for (const [index, sql] of SQLITE_MIGRATIONS.entries()) {
    if (index < applied) continue;
    inTransaction(db, () => {
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${index + 1}`);
    });
  }
}
