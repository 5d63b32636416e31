import { describe, expect, it } from 'vitest';
import { isStorageUnavailable, isValueFault } from '../../src/store/storage-errors.js';

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

describe('isValueFault: a statement’s values, not the database, were at fault (a batch of sends runs again a send at a time)', () => {
  it.each([
    [
      'a value that does not serialise (JSON.stringify of a BigInt)',
      new TypeError('Do not know how to serialize a BigInt'),
    ],
    ['a value out of range while parameters were made', new RangeError('Invalid time value')],
    ['PostgreSQL: a unique key taken', { code: '23505' }],
    ['PostgreSQL: a value that does not fit its type', { code: '22P02' }],
    [
      'SQLite: a primary key taken (SQLITE_CONSTRAINT_PRIMARYKEY)',
      Object.assign(new Error('UNIQUE constraint failed'), { errcode: 1555, code: 'ERR_SQLITE_ERROR' }),
    ],
    ['SQLite: a string or blob too big', Object.assign(new Error('string or blob too big'), { errcode: 18 })],
  ])('%s', (_, error) => {
    expect(isValueFault(error)).toBe(true);
  });

  it.each([
    [
      'an fsync that failed after the commit',
      Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }),
    ],
    ['PostgreSQL: a statement timeout', { code: '57014' }],
    ['PostgreSQL: a read-only transaction (a standby after a failover)', { code: '25006' }],
    ['PostgreSQL: a lock not had in time', { code: '55P03' }],
    ['a connection reset under a statement', { code: 'ECONNRESET' }],
    ['SQLite: the disk full', Object.assign(new Error('database or disk is full'), { errcode: 13 })],
    ['a plain error', new Error('boom')],
    ['not an error at all', 'text'],
  ])('not %s', (_, error) => {
    expect(isValueFault(error)).toBe(false);
  });
});
