import { TEST_DATABASE_URL } from '@foxbell/test-support/database-url';
import { inject } from 'vitest';
import { openPostgresStore } from '../src/store/postgres/open.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';
import type { Store } from '../src/store/store.js';

/** The store the suite runs on: its `server-postgres` project sets `FOXBELL_TEST_STORE=postgres`. */
export const TEST_STORE: 'sqlite' | 'postgres' =
  process.env.FOXBELL_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** The PostgreSQL the tests use: one place says which, for every package's tests. */
export { TEST_DATABASE_URL } from '@foxbell/test-support/database-url';

let schemas = 0;
/** A schema of this run no other test uses (the run's set-up drops them all at its end). */
export function newTestSchema(): string {
  schemas += 1;
  return `${inject('schemaPrefix')}_${process.pid}_${schemas}`;
}

/** A fresh, empty store of the kind this run tests. */
export async function openTestStore(): Promise<Store> {
  if (TEST_STORE === 'sqlite') return openSqliteStore({ dataDir: ':memory:' });
  return openPostgresStore({ url: TEST_DATABASE_URL, schema: newTestSchema(), poolSize: 4 });
}

/**
 * `count` stores on one fresh database, as `count` processes would open it. On PostgreSQL each
 * has its own pool; SQLite serves sends from one process only, so there it is one store.
 */
export async function openSharedStores(count: number): Promise<Store[]> {
  if (TEST_STORE === 'sqlite') return Array(count).fill(openSqliteStore({ dataDir: ':memory:' }));
  const schema = newTestSchema();
  return Promise.all(
    Array.from({ length: count }, () => openPostgresStore({ url: TEST_DATABASE_URL, schema, poolSize: 4 })),
  );
}
