import { openPostgresStore } from './postgres/open.js';
import { openSqliteStore } from './sqlite/open.js';
import type { Store } from './store.js';

/** Where the server keeps its data: the embedded SQLite file, or a PostgreSQL shared by processes. */
export type DatabaseConfig =
  | { kind: 'sqlite'; dataDir: string }
  | { kind: 'postgres'; url: string; schema: string | undefined; poolSize: number };

/** Opens the store a process runs on; `worker` processes only deliver. */
export function openStore(database: DatabaseConfig, role: 'api' | 'worker'): Promise<Store> {
  if (database.kind === 'postgres') {
    return openPostgresStore({ url: database.url, schema: database.schema, poolSize: database.poolSize });
  }
  return Promise.resolve(openSqliteStore({ dataDir: database.dataDir, role }));
}

/** Where the data is, for a log line: never a URL, which may hold a password. */
export function describeDatabase(database: DatabaseConfig): string {
  if (database.kind === 'sqlite') return database.dataDir;
  try {
    const url = new URL(database.url);
    return `postgres ${url.host}${url.pathname}${database.schema ? ` schema ${database.schema}` : ''}`;
  } catch {
    return 'postgres';
  }
}
