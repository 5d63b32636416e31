import { existsSync, constants as fsConstants, mkdirSync, readdirSync } from 'node:fs';
import { type FileHandle, mkdtemp, open, rm } from 'node:fs/promises';
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
 *
 * A backup holds every secret's hash and the Web Push private key, and `file` may be named in a
 * folder others can write. So the file is created by this process alone, mode 0600, and only if
 * nothing is at its name: `O_CREAT | O_EXCL | O_NOFOLLOW` refuses an existing file and a symlink
 * planted there, even one to a path that does not exist yet, with no moment between a check and
 * the open. SQLite writes the copy in a private folder inside the data directory, and its bytes
 * go into that file through the descriptor this process opened.
 */
export async function backupSqlite(dataDir: string, file: string): Promise<CopyFacts> {
  const source = path.join(dataDir, DATABASE);
  if (!existsSync(source)) throw new BackupError(`there is no Foxbell database in ${dataDir}`);
  let out: FileHandle;
  try {
    out = await open(file, CREATE_ALONE, 0o600);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST' || code === 'ELOOP') {
      throw new BackupError(`${file} exists (a file or a link): name a new file for the backup`);
    }
    throw new BackupError(`cannot write ${file}: ${(error as Error).message}`);
  }
  const staging = await mkdtemp(path.join(dataDir, '.backup-'));
  let written = false;
  try {
    const copy = path.join(staging, DATABASE);
    const db = new DatabaseSync(source, { timeout: 5_000 });
    try {
      await backup(db, copy);
    } catch (error) {
      throw new BackupError(`cannot copy the database: ${(error as Error).message}`);
    } finally {
      db.close();
    }
    const facts = checkedCopy(copy);
    await copyInto(copy, out);
    await out.chmod(0o600);
    await out.sync();
    written = true;
    return facts;
  } finally {
    await out.close();
    await rm(staging, { recursive: true, force: true });
    // A backup that failed half-way leaves no half-written file at the name it claimed.
    if (!written) await rm(file, { force: true });
  }
}

/** The bytes of `file` written into `out`, from its start. */
async function copyInto(file: string, out: FileHandle): Promise<void> {
  const input = await open(file, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    for (;;) {
      const { bytesRead } = await input.read(chunk, 0, chunk.length);
      if (bytesRead === 0) return;
      await out.write(chunk, 0, bytesRead);
    }
  } finally {
    await input.close();
  }
}

/** Creates the file or fails: never opens what is there, never follows a link at its name. */
const CREATE_ALONE =
  fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0);

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
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true });
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
    db?.close();
  }
}
