import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

export type { SQLInputValue, StatementSync };
export { DatabaseSync };

/**
 * SQLite's primary result codes that say the storage, not the statement, is the trouble. node:sqlite
 * puts the extended code in `errcode`; its low byte is the primary one.
 */
const STORAGE_CODES: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
};

/** SQLite's primary result codes that say a statement's values were at fault: CONSTRAINT, MISMATCH, TOOBIG, RANGE. */
const VALUE_CODES = new Set([19, 20, 18, 25]);

/** Whether node:sqlite refused a statement for the values it was given. */
export function sqliteValueFault(error: unknown): boolean {
  const { errcode } = error as { errcode?: unknown };
  return typeof errcode === 'number' && VALUE_CODES.has(errcode & 0xff);
}

/** `SQLITE_BUSY` and the like for a storage error of node:sqlite; undefined for any other error. */
export function sqliteStorageCode(error: unknown): string | undefined {
  const { errcode } = error as { errcode?: unknown };
  return typeof errcode === 'number' ? STORAGE_CODES[errcode & 0xff] : undefined;
}

/** A pragma's single value (`user_version`, `journal_mode`…). */
export function pragmaValue(db: DatabaseSync, pragma: string): unknown {
  const row = db.prepare(`PRAGMA ${pragma}`).get() as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}

/** `work` as one transaction: rolled back whole if it throws. (node:sqlite has no helper of its own.) */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
