import { fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import { makeDataDirPrivate } from '../data-dir.js';
import { pendingMigrations } from '../schema-version.js';
import { assembleStore } from '../sql/assemble.js';
import { purgeRows } from '../sql/retention.js';
import type { Store } from '../store.js';
import { SqliteConnection } from './connection.js';
import { sqliteCredentialLookup } from './credential-lookup.js';
import { DatabaseSync, inTransaction, pragmaValue } from './database.js';
import { sqliteDialect } from './dialect.js';
import { holdFileLock } from './file-lock.js';
import { sqliteHealth } from './health.js';
import { LeaseOwners } from './lease-owners.js';
import { SQLITE_MIGRATIONS } from './schema.js';

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
    return assemble(new SqliteConnection(prepare(new DatabaseSync(':memory:')), undefined));
  }
  makeDataDirPrivate(options.dataDir);
  const apiLock = (options.role ?? 'api') === 'api' ? lockApi(options.dataDir) : undefined;
  const file = path.join(options.dataDir, 'foxbell.db');
  let db: DatabaseSync;
  try {
    db = prepare(new DatabaseSync(file));
  } catch (error) {
    apiLock?.close();
    throw error;
  }
  const wal = openSync(`${file}-wal`, 'r+');
  makeDataDirPrivate(options.dataDir);
  // The new files' directory entries, and everything the migrations wrote.
  for (const fd of [openSync(options.dataDir, 'r'), wal]) fsyncSync(fd);
  const connection = new SqliteConnection(db, wal);
  const owners = new LeaseOwners(options.dataDir);
  // The one `api` process knows at start which lease holders died with an earlier one.
  if (apiLock) owners.releaseGone(connection);
  return assemble(connection, owners, apiLock, apiLock !== undefined);
}

/**
 * The store from its parts, one per concern, all on one connection; one in memory has no lease
 * owners nor `api.lock`. `soleWriter`: it alone serves sends and writes the pause (an `api` store,
 * or one in memory).
 */
function assemble(
  db: SqliteConnection,
  owners?: LeaseOwners,
  apiLock?: DatabaseSync,
  soleWriter = true,
): Store {
  const d = sqliteDialect(db);
  const credentials = sqliteCredentialLookup(db);
  return assembleStore(
    d,
    {
      findCredential: credentials.findCredential,
      // One batch at a time, started when no fsync runs; a commit then covers all that arrived
      // meanwhile, and those an fsync held back start at the next turn, whatever else waits (a
      // stream of other writes, each starting the next fsync, must not hold them back).
      sendBatching: { ready: () => !db.syncing, held: (release) => db.afterSync(release) },
      purge: (cutoffs, batch) => d.write(() => purgeRows(d, cutoffs, batch)),
      // Nothing to reclaim: SQLite puts the pages a delete frees on its free list, and writes new rows
      // there before it grows the file.
      reclaim: async () => {},
      ...sqliteHealth(db),
      async close() {
        await db.close();
        owners?.close();
        apiLock?.close();
      },
    },
    {
      credentialsChanged: credentials.forget,
      leasing: (owner) => owners?.hold(owner),
      // Only the `api` store serves sends and writes the pause: it keeps copies (see settings, sends).
      soleWriter,
    },
  );
}

/** Holds `api.lock` for the life of the store (see holdFileLock): one `api` store per data directory. */
function lockApi(dataDir: string): DatabaseSync {
  const lock = holdFileLock(path.join(dataDir, 'api.lock'));
  if (!lock) throw new DataDirInUseError(dataDir);
  return lock;
}

function prepare(db: DatabaseSync): DatabaseSync {
  try {
    db.exec(
      'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000',
    );
    migrateSqlite(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Runs the migrations `db` still needs, each in a transaction with the version it brings: one
 * that fails leaves the database at the version before it. A database of a newer release is
 * refused untouched.
 */
export function migrateSqlite(db: DatabaseSync, migrations: readonly string[] = SQLITE_MIGRATIONS): void {
  for (const { version, sql } of pendingMigrations(Number(pragmaValue(db, 'user_version')), migrations)) {
    inTransaction(db, () => {
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${version}`);
    });
  }
}
