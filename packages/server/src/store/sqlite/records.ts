import { records } from '../sql/records.js';
import type { SqliteConnection } from './connection.js';
import { sqliteDialect } from './dialect.js';

export const sqliteRecords = (db: SqliteConnection) => records(sqliteDialect(db));
