import { sqliteStorageCode } from './sqlite/database.js';

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
