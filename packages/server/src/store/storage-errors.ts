import { sqliteStorageCode, sqliteValueFault } from './sqlite/database.js';

/**
 * Database errors that say the storage, not the request, is the trouble: full, locked, gone or
 * restarting (SQLite's result codes; PostgreSQL's SQLSTATE classes 08, 53 and 57P; refused
 * connections). The API answers them `503` with `Retry-After`, so clients wait and retry rather
 * than give up; any other fault is a `500`. Neither is ever a `202`: a send is answered only after
 * its commit. Here, beside the stores, so that nothing above them knows a database's codes.
 */
export function isStorageUnavailable(error: unknown): boolean {
  if (sqliteStorageCode(error) !== undefined) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // node-postgres's own words for a pool that cannot reach the server, or a connection that broke
  // (the server restarted) before or while it was used, which carry no code.
  if (
    typeof message === 'string' &&
    /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed)/.test(
      message,
    )
  ) {
    return true;
  }
  if (typeof code !== 'string') return false;
  return (
    /^(08...|53...|57P0[1-3])$/.test(code) ||
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOSPC'].includes(code)
  );
}

/**
 * Errors that the values of a statement caused, not the database or the connection: a value that
 * does not serialise (a TypeError or RangeError thrown while the statement's parameters were made),
 * a broken constraint or a value that does not fit (SQLite's CONSTRAINT, MISMATCH, TOOBIG and
 * RANGE; PostgreSQL's SQLSTATE classes 22 and 23). Raised before a commit, so the transaction was
 * rolled back, and the same statements without those values would run.
 */
export function isValueFault(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true;
  if (sqliteValueFault(error)) return true;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && /^2[23]...$/.test(code);
}
