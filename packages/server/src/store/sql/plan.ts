import type { DeviceLeaving } from '../../model/devices.js';
import type { Row } from '../rows.js';

/**
 * A store operation written once for both databases, as a generator: it yields each statement
 * and is handed back its rows. SQLite runs it synchronously inside one transaction (one
 * connection, one writer: nothing else can run between two of its statements); PostgreSQL awaits
 * each statement on a pooled connection. Statements take `$1`, `$2`… placeholders and booleans.
 */
export type Plan<T> = Generator<Step, T, unknown>;

/** A statement (its rows, or how many rows it changed), or a part the database runs its own way. */
export type Step =
  | { sql: string; params: readonly unknown[]; changes?: true }
  | { native: (connection: never) => unknown };

export function* all(sql: string, ...params: unknown[]): Plan<Row[]> {
  return (yield { sql, params }) as Row[];
}

export function* get(sql: string, ...params: unknown[]): Plan<Row | undefined> {
  return ((yield { sql, params }) as Row[])[0];
}

/** How many rows a statement changed. */
export function* changes(sql: string, ...params: unknown[]): Plan<number> {
  return (yield { sql, params, changes: true }) as number;
}

/** A count(*) … AS n. */
export function* count(sql: string, ...params: unknown[]): Plan<number> {
  return Number(((yield { sql, params }) as Row[])[0]?.n ?? 0);
}

/**
 * What differs between the two databases, for the operations written once (store/sql/). What
 * differs more than a phrase (sends, routing, leases, status reads, queue signals) stays in each
 * database's folder.
 */
export interface Dialect {
  /** A stored boolean in a condition: SQLite's `1`, which its partial indexes name; PostgreSQL's `true`. */
  readonly true: string;
  readonly false: string;
  /** The column that keeps the order rows were made in: SQLite's `rowid`, PostgreSQL's `seq`. */
  readonly madeOrder: string;
  /**
   * Locks the rows a read in a write will change: PostgreSQL's `FOR UPDATE`, where transactions
   * run at once; nothing in SQLite, whose one writer runs alone.
   */
  readonly forUpdate: string;
  /**
   * A row's address, and `in` the rows a subquery of addresses picks, to delete a batch of many:
   * SQLite's `rowid IN (…)`; PostgreSQL's `ctid = ANY(ARRAY(…))`, which finds them by their
   * addresses (a TID scan) where `ctid IN (…)` would join.
   */
  readonly rowAddress: 'rowid' | 'ctid';
  amongRows(select: string): string;
  /** `= any of` a list passed as one parameter: SQLite reads it as JSON, PostgreSQL as an array. */
  inList(placeholder: string): string;
  list(values: readonly unknown[]): unknown;
  /** Runs a plan that only reads. */
  read<T>(plan: Plan<T>): Promise<T>;
  /**
   * Runs a plan as one transaction, resolved once durable. PostgreSQL takes the advisory locks
   * named by `locks` first (several processes write at once; see advisoryLocks) and may run a
   * plan again after a deadlock, so it is made by a function; SQLite has one writer and no locks
   * to take.
   */
  write<T>(plan: () => Plan<T>, locks?: string[] | (() => Promise<string[]>)): Promise<T>;
  /** Devices stop being their accounts': deactivated, their waiting pushes skipped, their keys revoked. */
  removeDevices(ids: readonly string[], now: number, why: DeviceLeaving): Plan<void>;
  /**
   * Takes notifications that are still queued off the queue, unrouted: of an account deleted, or
   * (marked dropped: `token_revoked`) of a token revoked. The queue is SQLite's partial index on
   * `routed_at IS NULL` and PostgreSQL's `route_queue` (see postgres/schema.ts).
   */
  unqueue(of: { accountId: string } | { tokenId: string }, now: number): Plan<void>;
}
