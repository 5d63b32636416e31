import { closeSync, fdatasync } from 'node:fs';
import type { Row } from '../rows.js';
import { cached } from '../sql/plan.js';
import { type DatabaseSync, inTransaction, type SQLInputValue, type StatementSync } from './database.js';

/**
 * The open database, shared by the store's parts: statements prepared once, transactions, and
 * durability.
 *
 * Durability is `synchronous=FULL`'s, with the fsync moved off the event loop: SQLite commits
 * with `synchronous=NORMAL` (the WAL is written, not synced), and the store then fsyncs the WAL
 * file itself on libuv's thread pool, resolving each write only once an fsync that began after
 * its commit has finished. A commit with FULL would block the whole process for the fsync; this
 * way the next batch is parsed, validated and committed while the previous one is being synced,
 * and one fsync covers every commit before it. (Linux fsync flushes the file, whichever
 * descriptor asks; SQLite itself syncs the WAL before every checkpoint, whichever process runs it.)
 *
 * Delivery bookkeeping (routing, leases, attempt ends) commits without waiting for the fsync: a
 * power cut can lose its last moments, and then a destination is pushed once more, which its
 * fixed `apns-id` and the tag's collapse id make harmless. An accepted send is never lost.
 */
export class SqliteConnection {
  readonly #db: DatabaseSync;
  /** The WAL file, fsync'd before a write is reported; undefined for an in-memory database. */
  readonly #wal: number | undefined;
  readonly #statements = new Map<string, StatementSync>();
  #syncing = false;
  /** Writes committed since the fsync in progress began: they wait for the next one. */
  #awaitingSync: ((error: Error | null) => void)[] = [];
  /** Called as each fsync ends. */
  readonly #afterSync: (() => void)[] = [];

  constructor(db: DatabaseSync, wal: number | undefined) {
    this.#db = db;
    this.#wal = wal;
  }

  /** Whether an fsync is running. */
  get syncing(): boolean {
    return this.#syncing;
  }

  /** Calls `listener` as each fsync ends. */
  afterSync(listener: () => void): void {
    this.#afterSync.push(listener);
  }

  /** Runs `work` as one transaction. */
  transaction<T>(work: () => T): T {
    return inTransaction(this.#db, work);
  }

  /** Runs `change` in one transaction and resolves once it is durable. */
  async write<T>(change: () => T): Promise<T> {
    const result = this.transaction(change);
    await this.synced();
    return result;
  }

  /** Resolves once everything committed so far is on disk. */
  synced(): Promise<void> {
    const wal = this.#wal;
    if (wal === undefined) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#awaitingSync.push((error) => (error ? reject(error) : resolve()));
      if (!this.#syncing) this.#startSync(wal);
    });
  }

  #startSync(wal: number): void {
    const waiting = this.#awaitingSync;
    this.#awaitingSync = [];
    this.#syncing = true;
    // fdatasync: the WAL's bytes and its size, which a later read needs, without its timestamps,
    // which nothing reads.
    fdatasync(wal, (error) => {
      this.#syncing = false;
      for (const done of waiting) done(error);
      for (const listener of this.#afterSync) listener();
      if (this.#awaitingSync.length > 0) this.#startSync(wal);
    });
  }

  /** Prepares each SQL text once. */
  #sql(text: string): StatementSync {
    return cached(this.#statements, text, this.#prepare);
  }

  readonly #prepare = (text: string) => this.#db.prepare(text);

  get(text: string, ...params: unknown[]): Row | undefined {
    return this.#sql(text).get(...(params as SQLInputValue[])) as Row | undefined;
  }

  all(text: string, ...params: unknown[]): Row[] {
    return this.#sql(text).all(...(params as SQLInputValue[])) as Row[];
  }

  /** Runs a statement; how many rows it changed. */
  run(text: string, ...params: unknown[]): number {
    return Number(this.#sql(text).run(...(params as SQLInputValue[])).changes);
  }

  /** Closes the database once everything committed is on disk. */
  async close(): Promise<void> {
    await this.synced();
    this.#db.close();
    if (this.#wal !== undefined) closeSync(this.#wal);
  }
}
