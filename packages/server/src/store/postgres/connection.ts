import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Row } from '../rows.js';
import { cached } from '../sql/plan.js';

/** A 64-bit advisory lock key for a name. */
export function lockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

/**
 * Statements taking the transaction-scoped advisory locks of `names`, in one round trip and in one
 * order everywhere, so two transactions that each take several cannot deadlock.
 */
export function advisoryLocks(names: string[]): string {
  return [...new Set(names.map(lockKey))]
    .sort()
    .map((key) => `SELECT pg_advisory_xact_lock(${key})`)
    .join('; ');
}

/** Errors after which PostgreSQL has rolled the transaction back and running it again is safe. */
const RETRYABLE = new Set(['40001', '40P01']);
export const MAX_TRANSACTION_RUNS = 5;

/** A serialization failure or a deadlock: the transaction was rolled back, and may run again. */
export function mayRunAgain(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/** Queries on one connection, each prepared once per connection. */
export class Session {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: Map<string, string>,
  ) {}

  async rows(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.#query(text, values)).rows as Row[];
  }

  /** How many rows a statement changed. */
  async count(text: string, values: unknown[] = []): Promise<number> {
    return (await this.#query(text, values)).rowCount ?? 0;
  }

  #query(text: string, values: unknown[]): Promise<pg.QueryResult> {
    const name = cached(this.names, text, () => `foxbell_${this.names.size + 1}`);
    return this.client.query({ name, text, values });
  }

  /** Runs statements without parameters in one round trip (the simple protocol). */
  async simple(text: string): Promise<void> {
    await this.client.query(text);
  }
}

/** The pool, shared by the store's parts: one-statement reads and retried transactions. */
export class PostgresConnection {
  readonly #pool: pg.Pool;
  /** Statement names by text: the same name prepares the same text on every connection. */
  readonly #names = new Map<string, string>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * A read is one statement, outside a transaction; a statement sees the database as of one moment.
   * So an answer assembled from several tables is read in one statement (a status record is a
   * notification with its destinations and events: see sql/records.ts), never in two, between which a
   * worker's commit could land and the record contradict itself (a destination accepted while the
   * notification is still accepted). Taking one statement, this cannot be written otherwise.
   */
  async read(text: string, values: unknown[] = []): Promise<Row[]> {
    const client = await this.#pool.connect();
    try {
      return await new Session(client, this.#names).rows(text, values);
    } finally {
      client.release();
    }
  }

  /**
   * Runs `work` on one connection of the pool, each statement on its own, outside any transaction
   * (VACUUM cannot run inside one). A connection on which `work` failed is closed, not reused: it
   * may hold settings `work` made for itself.
   */
  async outside<T>(work: (db: Session) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let failed: Error | undefined;
    try {
      return await work(new Session(client, this.#names));
    } catch (error) {
      failed = error as Error;
      throw error;
    } finally {
      client.release(failed);
    }
  }

  /**
   * Runs `work` in one transaction. The advisory locks named in `locks` are taken first, in the
   * same round trip as BEGIN (see advisoryLocks), and held to the end. A deadlock or serialization
   * failure is run again from the start.
   */
  async transaction<T>(work: (db: Session) => Promise<T>, locks: string[] = []): Promise<T> {
    const begin = locks.length === 0 ? 'BEGIN' : `BEGIN; ${advisoryLocks(locks)}`;
    for (let run = 1; ; run += 1) {
      const client = await this.#pool.connect();
      const db = new Session(client, this.#names);
      let broken: Error | undefined;
      try {
        await db.simple(begin);
        const result = await work(db);
        await db.simple('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackFailed: Error) => {
          broken = rollbackFailed;
        });
        if (broken === undefined && mayRunAgain(error) && run < MAX_TRANSACTION_RUNS) {
          continue;
        }
        throw error;
      } finally {
        // A connection whose rollback failed is in an unknown state: close it, do not reuse it.
        client.release(broken);
      }
    }
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}
