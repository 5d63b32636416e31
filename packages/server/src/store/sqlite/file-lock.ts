import { DatabaseSync, sqliteStorageCode } from './database.js';

/**
 * An exclusive lock on `file`, held until the returned database is closed, or undefined when
 * another process holds it. The operating system drops the lock when its process ends, however
 * it ends, so a crash never leaves a stale lock behind: whether a lock can be taken says whether
 * its holder is alive.
 */
export function holdFileLock(file: string): DatabaseSync | undefined {
  const lock = new DatabaseSync(file, { timeout: 0 });
  try {
    lock.exec('PRAGMA locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS held (at INTEGER); DELETE FROM held;');
    return lock;
  } catch (error) {
    lock.close();
    if (sqliteStorageCode(error) === 'SQLITE_BUSY') return undefined;
    throw error;
  }
}
