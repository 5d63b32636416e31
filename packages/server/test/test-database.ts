import { TEST_DATABASE_URL } from '@foxbell/test-support/database-url';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { openPostgresStore } from '../src/store/postgres/open.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';
import type { Store } from '../src/store/store.js';

/** The store the suite runs on: its `server-postgres` project sets `FOXBELL_TEST_STORE=postgres`. */
export const TEST_STORE: 'sqlite' | 'postgres' =
  process.env.FOXBELL_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** The PostgreSQL the tests use: one place says which, for every package's tests. */
export { TEST_DATABASE_URL } from '@foxbell/test-support/database-url';

/**
 * Schemas this process made. Counted on the process, not in this module: a worker runs file after
 * file, each with its own copy of this module (test-support's fresh-modules), and a count that
 * started again with each file named a schema an earlier file had made.
 */
const made = Symbol.for('foxbell.test-schemas');
const worker = globalThis as { [made]?: number };
/** A schema of this run no other test uses (the run's set-up drops them all at its end). */
export function newTestSchema(): string {
  worker[made] = (worker[made] ?? 0) + 1;
  return `${inject('schemaPrefix')}_${process.pid}_${worker[made]}`;
}

/** A fresh, empty store of the kind this run tests. */
export async function openTestStore(): Promise<Store> {
  if (TEST_STORE === 'sqlite') return openSqliteStore({ dataDir: ':memory:' });
  const [store] = await openSharedStores(1);
  return store as Store;
}

/**
 * On PostgreSQL, the schemas of this file's stores, migrated once and reused: when its stores are
 * closed a schema goes back, emptied, for the next `openTestStore` or `openSharedStores`. Making a schema and running every
 * migration costs far more than most tests (hundreds of milliseconds on a loaded machine);
 * emptying one, a few. Each entry is a schema being emptied, or nothing when it could not be (the
 * next store then gets a new one).
 */
const freeSchemas: Promise<string | undefined>[] = [];
/** What each schema holds once migrated: its tables, indexes, sequences, functions and triggers. */
const shapes = new Map<string, string>();

let connection: Promise<pg.Client> | undefined;
function client(): Promise<pg.Client> {
  connection ??= (async () => {
    const opened = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await opened.connect();
    return opened;
  })();
  return connection;
}
afterAll(async () => {
  await Promise.allSettled(freeSchemas.splice(0));
  await (await connection)?.end();
});

async function shapeOf(schema: string): Promise<string> {
  const { rows } = await (await client()).query(
    `SELECT string_agg(name, ',' ORDER BY name) AS shape FROM (
       SELECT relkind::text || ':' || relname AS name FROM pg_class WHERE relnamespace = $1::regnamespace
       UNION ALL SELECT 'f:' || proname FROM pg_proc WHERE pronamespace = $1::regnamespace
       UNION ALL SELECT 't:' || tgname FROM pg_trigger JOIN pg_class ON pg_class.oid = tgrelid
         WHERE relnamespace = $1::regnamespace
     ) AS objects`,
    [schema],
  );
  return rows[0].shape;
}

/**
 * The schema with no rows, its identity sequences restarted, as its migrations left it; undefined
 * when a test changed its shape (a trigger added, a table dropped): that one is not reused. Rows
 * are deleted with triggers and foreign keys off (`session_replication_role`, for a superuser), in
 * one transaction; `TRUNCATE` would take a new file per table and index, many times slower.
 */
async function emptied(schema: string): Promise<string | undefined> {
  try {
    const db = await client();
    if ((await shapeOf(schema)) !== shapes.get(schema)) return undefined;
    const { rows } = await db.query(
      `SELECT 'DELETE FROM ' || quote_ident(tablename) AS sql FROM pg_tables
         WHERE schemaname = $1 AND tablename <> 'foxbell_migrations'
       UNION ALL SELECT 'ALTER SEQUENCE ' || quote_ident(sequencename) || ' RESTART'
         FROM pg_sequences WHERE schemaname = $1`,
      [schema],
    );
    await db.query(
      [
        'BEGIN',
        `SET LOCAL search_path = ${schema}`,
        'SET LOCAL session_replication_role = replica',
        ...rows.map((row) => row.sql),
        'COMMIT',
      ].join(';\n'),
    );
    return schema;
  } catch {
    await (await client()).query('ROLLBACK').catch(() => undefined);
    return undefined;
  }
}

/**
 * `count` stores on one fresh database, as `count` processes would open it. On PostgreSQL each
 * has its own pool; SQLite serves sends from one process only, so there it is one store.
 */
export async function openSharedStores(count: number): Promise<Store[]> {
  if (TEST_STORE === 'sqlite') return Array(count).fill(openSqliteStore({ dataDir: ':memory:' }));
  const schema = (await freeSchemas.pop()) ?? newTestSchema();
  const stores = await Promise.all(
    Array.from({ length: count }, () => openPostgresStore({ url: TEST_DATABASE_URL, schema, poolSize: 4 })),
  );
  // Migrated once: a store opened on it again finds it at the newest version.
  shapes.set(schema, shapes.get(schema) ?? (await shapeOf(schema)));
  let open = count;
  return stores.map((store) => {
    let closed = false;
    return {
      ...store,
      async close() {
        if (closed) return;
        closed = true;
        await store.close();
        open -= 1;
        // The last store on it closed: the schema goes back, emptied.
        if (open === 0) freeSchemas.unshift(emptied(schema));
      },
    };
  });
}
