import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { TEST_DATABASE_URL } from './database-url.js';
import { cleanUpAfterTest, tempDir } from './processes.js';

/** The two stores foxbell-server runs on. */
export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

/** A fresh database for one foxbell-server process, gone after the test. */
export interface TestDatabase {
  kind: StoreKind;
  /** The server's arguments that open it. */
  args: string[];
  /**
   * Makes every insert into `table` fail with an error no store expects (a trigger raises it), as
   * an unforeseen fault would; the returned function takes the fault away.
   */
  failInserts(table: string): Promise<() => Promise<void>>;
}

export async function testDatabase(kind: StoreKind): Promise<TestDatabase> {
  return kind === 'sqlite' ? sqliteDatabase() : postgresDatabase();
}

async function sqliteDatabase(): Promise<TestDatabase> {
  const dir = await tempDir();
  // Opened only while changed: the server holds the file, and SQLite lets a second writer in
  // between its transactions.
  const exec = (sql: string) => {
    const db = new DatabaseSync(path.join(dir, 'foxbell.db'), { timeout: 5_000 });
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  };
  return {
    kind: 'sqlite',
    args: ['--data', dir],
    async failInserts(table) {
      const trigger = `injected_fault_${table}`;
      exec(
        `CREATE TRIGGER ${trigger} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
      );
      return async () => exec(`DROP TRIGGER ${trigger}`);
    },
  };
}

async function postgresDatabase(): Promise<TestDatabase> {
  const schema = `foxbell_test_${randomBytes(6).toString('hex')}`;
  const exec = async (sql: string) => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
    } catch (error) {
      throw new Error(
        `this test needs PostgreSQL at ${TEST_DATABASE_URL} (set FOXBELL_TEST_DATABASE_URL to use another): ${(error as Error).message}`,
      );
    }
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  // Made here, so that an unreachable database fails the test before a server is started.
  await exec(`CREATE SCHEMA ${schema}`);
  cleanUpAfterTest(() => exec(`DROP SCHEMA ${schema} CASCADE`));
  return {
    kind: 'postgres',
    args: ['--database', TEST_DATABASE_URL, '--database-schema', schema],
    async failInserts(table) {
      const name = `${schema}.injected_fault_${table}`;
      await exec(`
        CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'injected fault'; END $$;
        CREATE TRIGGER injected_fault BEFORE INSERT ON ${schema}.${table}
          FOR EACH ROW EXECUTE FUNCTION ${name}();`);
      return () => exec(`DROP FUNCTION ${name}() CASCADE`);
    },
  };
}
