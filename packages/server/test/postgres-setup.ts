import { randomBytes } from 'node:crypto';
import { TEST_DATABASE_URL } from '@foxbell/test-support/database-url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Every schema this run makes starts with it, so runs sharing one database never meet. */
    schemaPrefix: string;
  }
}

/**
 * The PostgreSQL runs' set-up: the database must respond (an unreachable one fails the run, never
 * skips it), and the schemas (and databases) this run made are dropped at its end.
 */
export default async function setup(project: TestProject) {
  const prefix = `foxbell_t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `the PostgreSQL tests need a database at ${TEST_DATABASE_URL} (set FOXBELL_TEST_DATABASE_URL to use another): ${(error as Error).message}`,
    );
  }
  await client.end();
  project.provide('schemaPrefix', prefix);
  return async () => {
    const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await cleanup.connect();
    const { rows } = await cleanup.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 || '\\_%'", [
      prefix,
    ]);
    for (const { nspname } of rows) await cleanup.query(`DROP SCHEMA ${nspname} CASCADE`);
    // The few tests that need a database of their own name it as a schema of this run.
    const databases = await cleanup.query("SELECT datname FROM pg_database WHERE datname LIKE $1 || '\\_%'", [
      prefix,
    ]);
    for (const { datname } of databases.rows) await cleanup.query(`DROP DATABASE ${datname} WITH (FORCE)`);
    await cleanup.end();
  };
}
