import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { backup } from 'node:sqlite';
import { makeDataDirPrivate } from '../data-dir.js';
import { NewerDatabaseError, pendingMigrations } from '../schema-version.js';
import { DatabaseSync, pragmaValue } from './database.js';
import { SQLITE_MIGRATIONS } from './schema.js';

/** What a backup or restore could not do, said so that the operator can mend it. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** What a copy holds: the schema version and how many notifications. */
export interface CopyFacts {
  schemaVersion: number;
  notifications: number;
}

const DATABASE = 'foxbell.db';

/**
 * Copies the database of `dataDir` to `file` while a server may be running on it, with SQLite's
 * online backup: the copy is one consistent moment of the database (a file copy of a database in
 * WAL mode is not), made page by page between the server's writes, which are never blocked.
 */
export async function backupSqlite(dataDir: string, file: string): Promise<CopyFacts> {
  const source = path.join(dataDir, DATABASE);
  if (!existsSync(source)) throw new BackupError(`there is no Foxbell database in ${dataDir}`);
  if (existsSync(file)) throw new BackupError(`${file} exists: name a new file for the backup`);
  const db = new DatabaseSync(source, { timeout: 5_000 });
  try {
    await backup(db, file);
  } catch (error) {
    throw new BackupError(`cannot write ${file}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  return checkedCopy(file);
}

/**
 * Brings a backup into an empty data directory, checked first: a damaged file, or one of a newer
 * release, is refused before anything is written.
 */
export async function restoreSqlite(file: string, dataDir: string): Promise<CopyFacts> {
  if (!existsSync(file)) throw new BackupError(`there is no backup at ${file}`);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new BackupError(`${dataDir} is not empty: restore into a new, empty data directory`);
  }
  const facts = checkedCopy(file);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    await backup(db, path.join(dataDir, DATABASE));
  } finally {
    db.close();
  }
  makeDataDirPrivate(dataDir);
  return facts;
}

/** A copy's facts, once SQLite finds it whole and this release can open it. */
function checkedCopy(file: string): CopyFacts {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (error) {
    throw new BackupError(`${file} is not a Foxbell backup: ${(error as Error).message}`);
  }
  try {
    const integrity = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[];
    if (integrity.length !== 1 || integrity[0]?.integrity_check !== 'ok') {
      throw new BackupError(`${file} is damaged: ${integrity.map((row) => row.integrity_check).join('; ')}`);
    }
    const schemaVersion = Number(pragmaValue(db, 'user_version'));
    pendingMigrations(schemaVersion, SQLITE_MIGRATIONS);
    const row = db.prepare('SELECT count(*) AS n FROM notifications').get() as { n: number };
    return { schemaVersion, notifications: Number(row.n) };
  } catch (error) {
    if (error instanceof BackupError || error instanceof NewerDatabaseError) throw error;
    throw new BackupError(`${file} is not a Foxbell backup: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}
