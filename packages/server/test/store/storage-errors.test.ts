import { describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../../src/store/storage-errors.js';

describe('isStorageUnavailable: the database, not the request, is the trouble (a 503, never a 500)', () => {
  it.each([
    ['PostgreSQL restarting: the session ended', { code: '57P01' }],
    ['PostgreSQL starting up', { code: '57P03' }],
    ['a connection refused while it is down', { code: 'ECONNREFUSED' }],
    ['a connection reset under a statement', { code: 'ECONNRESET' }],
    ['too many connections', { code: '53300' }],
    ['the connection broke (class 08)', { code: '08006' }],
    ['node-postgres: the socket closed', new Error('Connection terminated unexpectedly')],
    ['node-postgres: no connection in time', new Error('timeout exceeded when trying to connect')],
    [
      'node-postgres: a connection that broke while out of the pool, used again',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['node-postgres: a closed connection', new Error('Client was closed and is not queryable')],
    [
      'SQLite: busy',
      Object.assign(new Error('database is locked'), { errcode: 5, code: 'ERR_SQLITE_ERROR' }),
    ],
  ])('%s', (_, error) => {
    expect(isStorageUnavailable(error)).toBe(true);
  });

  it.each([
    ['a constraint broken (a fault of ours)', { code: '23505' }],
    ['a syntax error', { code: '42601' }],
    ['a plain error', new Error('boom')],
    ['not an error at all', 'text'],
  ])('not %s', (_, error) => {
    expect(isStorageUnavailable(error)).toBe(false);
  });
});
