import pg from 'pg';
import { pendingMigrations } from '../schema-version.js';
import { assembleStore } from '../sql/assemble.js';
import type { Store } from '../store.js';
import { lockKey, MAX_TRANSACTION_RUNS, mayRunAgain, PostgresConnection } from './connection.js';
import { postgresCredentialLookup } from './credential-lookup.js';
import { postgresDialect } from './dialect.js';
import { postgresHealth } from './health.js';
import { connectionConfig, DEFAULT_POOL_SIZE, SCHEMA_NAME } from './options.js';
import { postgresQueueSignal } from './queue-signal.js';
import { postgresPurge } from './retention.js';
import { POSTGRES_MIGRATIONS } from './schema.js';

export interface PostgresStoreOptions {
  /** A `postgres://` URL (libpq's form; `?options=` and `?sslmode=` are understood). */
  url: string;
  /** The schema holding the tables, made when missing; default: the connection's own search_path. */
  schema?: string | undefined;
  /** Connections this process opens at most. */
  poolSize?: number | undefined;
}

/** The database could not be reached or refused the connection. The message names no password. */
export class DatabaseUnreachableError extends Error {
  constructor(where: string, cause: unknown) {
    super(`cannot reach PostgreSQL at ${where}: ${(cause as Error).message}`, { cause });
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * The store for several processes on one PostgreSQL: any number of API processes and workers
 * share it. Whatever must hold across processes is decided inside the database, never in a
 * process's memory: a send is admitted under a per-account transaction lock (so concurrent
 * retries of one idempotency key make one notification, and no rate window or quota admits one
 * too many), workers lease destinations with `FOR UPDATE SKIP LOCKED`, and credentials are read
 * on every request (a revoked token stops at once, everywhere).
 *
 * Every write is a transaction committed with the server's `synchronous_commit` (on by default):
 * a `202` is on disk.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`the database schema must be lowercase letters, digits and _, not "${schema}"`);
  }
  const config: pg.PoolConfig = {
    ...connectionConfig(options.url, schema),
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    // A connection that cannot be had in this time is an outage, not a queue to wait in.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'foxbell-server',
  };
  const pool = new pg.Pool(config);
  // An idle connection that breaks (the database restarted) is dropped from the pool and
  // replaced on the next query; without a listener the error would end the process.
  pool.on('error', () => {});
  // pg-pool listens for a connection's `error` only while the connection is idle, and an `error`
  // with no listener ends the process. So every connection has a listener of ours for its whole
  // life, from the moment it connects: one that breaks while it is out of the pool (between two
  // statements), or while pg-pool is handing it over (a stopping database's FATAL 57P01 in the same
  // read as the ReadyForQuery that ends the connecting, before the asker has the connection), is
  // marked not queryable by node-postgres; its next statement fails (a 503), and pg-pool drops it
  // at release instead of keeping it.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await migratePostgres(pool, schema);
  } catch (error) {
    await pool.end();
    const code = (error as { code?: string }).code;
    if (code !== undefined && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|28|3D)/.test(code)) {
      throw new DatabaseUnreachableError(whereOf(options.url), error);
    }
    throw error;
  }
  const { max: _, ...one } = config;
  return assemble(new PostgresConnection(pool), one);
}

/** The store from its parts, one per concern, all on one pool (and a connection to listen on). */
function assemble(db: PostgresConnection, config: pg.ClientConfig): Store {
  const d = postgresDialect(db);
  return assembleStore(
    d,
    {
      ...postgresCredentialLookup(db),
      // A few batches at once, each of 256 sends at most; while they all run, new sends wait and
      // make the next batch bigger.
      sendBatching: { maxBatch: 256, maxInFlight: 4 },
      ...postgresPurge(db, d),
      ...postgresHealth(db),
      ...postgresQueueSignal(config),
      close: () => db.close(),
    },
    // Any process may pause sends, and serve them: what they read is read from the database.
    { soleWriter: false },
  );
}

/** host:port/database of a URL, without its user or password. */
function whereOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the given --database URL';
  }
}

/**
 * Runs the migrations the database still needs, one transaction each with the version it brings,
 * under a lock that makes processes starting together take turns: one that fails leaves the
 * database at the version before it. A database of a newer release is refused untouched.
 */
export async function migratePostgres(
  pool: pg.Pool,
  schema: string | undefined,
  migrations: readonly string[] = POSTGRES_MIGRATIONS,
): Promise<void> {
  const client = await pool.connect();
  const key = lockKey(`foxbell:migrate:${schema ?? ''}`);
  try {
    // Session-level: held across the migrations' own transactions, and released by the server if
    // this process dies while holding it.
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS foxbell_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)',
    );
    const { rows } = await client.query(
      'SELECT coalesce(max(version), 0) AS applied FROM foxbell_migrations',
    );
    const applied = Number(rows[0].applied);
    for (const { version, sql } of pendingMigrations(applied, migrations)) {
      // During a rolling upgrade the release before still serves: a migration's table locks can
      // deadlock with its transactions, and PostgreSQL then rolls the migration back; it runs again.
      for (let run = 1; ; run += 1) {
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO foxbell_migrations (version, applied_at) VALUES ($1, now())', [
            version,
          ]);
          await client.query('COMMIT');
          break;
        } catch (error) {
          await client.query('ROLLBACK');
          if (!mayRunAgain(error) || run >= MAX_TRANSACTION_RUNS) throw error;
        }
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => {});
    client.release();
  }
}
