import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/schema.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/schema.js';

/**
 * Each shipped migration's SQL, by the first 16 hex digits of its SHA-256. A database records
 * only how many migrations ran, so one edited after it shipped would leave databases migrated
 * before and after the edit with different schemas and nothing to tell them apart: the schemas
 * (store/sql/migrations.ts builds much of both from one text) may be rewritten only as long as
 * every version's SQL stays what it was. A new migration appends its hash here.
 */
const SHIPPED = {
  sqlite: [
    '0c56196ae35ca5a9',
    '2a7d7832fc490a1e',
    '6827239225f6f910',
    'd39a86d8d381f930',
    '5ed8ed93feac5901',
    'e0f5c13b6fb86e07',
    '5ed3d18ee0d9fc40',
    '67d482168963df3e',
    '0030a8d4d464f83c',
    '29c46c7eb03fc054',
    'd10163f5db477d06',
  ],
  postgres: [
    'a5da7418fd5d3966',
    'd5df46ae242a56ab',
    '397e752f4738f2ff',
    'adbca2d65ab2656f',
    '43a945ac9235aa21',
    '67d482168963df3e',
    '261b70df72204933',
    '3359fddc3f173bb3',
    'fcf18a23a8d9f5b6',
  ],
};

const hashOf = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);

describe('shipped migrations', () => {
  it.each([
    ['sqlite', SQLITE_MIGRATIONS],
    ['postgres', POSTGRES_MIGRATIONS],
  ] as const)(
    '%s: every shipped migration runs the SQL it shipped with, in its place',
    (store, migrations) => {
      expect(migrations.slice(0, SHIPPED[store].length).map(hashOf)).toEqual(SHIPPED[store]);
    },
  );
});
