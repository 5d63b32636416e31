import { records } from '../sql/records.js';
import type { PostgresConnection } from './connection.js';
import { postgresDialect } from './dialect.js';

export const postgresRecords = (db: PostgresConnection) => records(postgresDialect(db));
