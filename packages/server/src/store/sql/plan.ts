import type { ClaimedDestination } from '../../model/leases.js';
import type { Row } from '../rows.js';
import type { Store } from '../store.js';

/**
 * A store operation written once for both databases, as a generator: it yields each statement
 * and is handed back its rows. SQLite runs it synchronously inside one transaction (one
 * connection, one writer: nothing else can run between two of its statements); PostgreSQL awaits
 * each statement on a pooled connection. Statements take `$1`, `$2`… placeholders and booleans.
 * A statement's text is a constant, or made once when the store is assembled (in the factory that
 * is given the dialect), never on each call: each database finds its prepared statement by it.
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

/**
 * A statement given rows as one table (see rowsStatement): its text, and the parameters that pass
 * rows to it.
 */
export interface RowsStatement {
  readonly sql: string;
  params(rows: unknown[][]): unknown[];
  /** Run once per row (see Dialect.writeTable), each row's values after the statement's own. */
  readonly each?: true;
}

/**
 * A statement that reads rows as one table where its text says `$rows`: `table` names that table
 * and its columns with their PostgreSQL types, as "x(name type, …)". The rows' parameters follow
 * the statement's own. Made once, when the store is assembled: its text is the same on every call.
 */
export function rowsStatement(
  d: Dialect,
  table: string,
  sql: string,
  use: 'read' | 'write' = 'read',
): RowsStatement {
  const [, alias = '', list = ''] = /^(\w+)\((.*)\)$/s.exec(table) ?? [];
  const columns = list.split(',').map((column) => column.trim().split(/\s+/) as [string, string]);
  const own = Math.max(0, ...Array.from(sql.matchAll(/\$(\d+)/g), (match) => Number(match[1])));
  const from = use === 'write' ? d.writeTable(alias, columns, own + 1) : d.table(alias, columns, own + 1);
  return { ...from, sql: sql.replace('$rows', from.sql) };
}

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * The statements that run `statement` over `rows`, after its own parameters, `params`: one, or one
 * a row where the dialect runs a write once per row (see Dialect.writeTable); none for no rows.
 */
export function statementsOver(
  statement: RowsStatement,
  rows: unknown[][],
  ...params: unknown[]
): Statement[] {
  if (rows.length === 0) return [];
  if (!statement.each) return [{ sql: statement.sql, params: [...params, ...statement.params(rows)] }];
  return rows.map((row) => ({ sql: statement.sql, params: [...params, ...row] }));
}

/** `statement` over `rows` (see statementsOver), its rows returned. */
export function* overRows(statement: RowsStatement, rows: unknown[][], ...params: unknown[]): Plan<Row[]> {
  const result: Row[] = [];
  for (const step of statementsOver(statement, rows, ...params)) result.push(...((yield step) as Row[]));
  return result;
}

/** The value `map` keeps under `key`, made by `make` (and kept) the first time. */
export function cached<K, V>(map: Map<K, V>, key: K, make: (key: K) => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make(key);
    map.set(key, value);
  }
  return value;
}

/** A count(*) … AS n. */
export function* count(sql: string, ...params: unknown[]): Plan<number> {
  return Number(((yield { sql, params }) as Row[])[0]?.n ?? 0);
}

/** The options of a claim of due destinations (see Store.claimDestinations). */
export type DueClaim = Omit<Parameters<Store['claimDestinations']>[0], 'maxAttempts'>;

/**
 * What differs between the two databases, for the operations written once (store/sql/). What
 * differs more than a phrase (credential lookups, health, retention's upkeep, the queue signal:
 * see assemble.ts) stays in each database's folder.
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
  /**
   * A subquery's rows as one JSON array of objects (`fields`: pairs of a name and a column), in
   * `order`: SQLite's `json_group_array`, PostgreSQL's `json_agg`; `[]` when there are none.
   */
  jsonArray(fields: string, order: string): string;
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
  /**
   * Takes notifications that are still queued off the queue, unrouted: of an account deleted, or
   * (marked dropped: `token_revoked`) of a token revoked. The queue is SQLite's partial index on
   * `routed_at IS NULL` and PostgreSQL's `route_queue` (see postgres/schema.ts).
   */
  unqueue(of: { accountId: string } | { tokenId: string }, now: number): Plan<void>;
  /**
   * Queues stored notifications for routing, given as `[id, at]`: PostgreSQL's `route_queue` rows
   * and a statement that signals its listeners (run last, see together); nothing in SQLite, whose
   * queue is the unrouted rows themselves.
   */
  enqueue(rows: [id: string, at: number][]): { writes: Statement[]; signal?: string };
  /**
   * Writes that return nothing, run as one: PostgreSQL's as the parts of one `WITH` whose query is
   * `last` (one round trip for all; the text is made once for each list of texts); SQLite's one
   * after another, as they cost no round trip there.
   */
  together(writes: Statement[], last?: string): Plan<void>;

  // Delivery (routing and leases): PostgreSQL's workers run at once, in any process, and skip what
  // another holds rather than wait for it; SQLite's one writer runs alone.

  /**
   * Runs a plan as one transaction, resolved once committed: delivery's bookkeeping, which SQLite
   * does not wait to be on disk (see SqliteConnection); PostgreSQL commits it as any write.
   */
  writeUnsynced<T>(plan: () => Plan<T>): Promise<T>;
  /**
   * Rows given to one statement as a table `alias` with `columns` (names and PostgreSQL's types),
   * its parameters from `$at` on: SQLite's `jsonb_each` of one JSON text, PostgreSQL's `unnest` of
   * one array per column (see rowsStatement).
   */
  table(alias: string, columns: [name: string, type: string][], at: number): RowsStatement;
  /**
   * Rows a write takes (rowsStatement's `write`): PostgreSQL's `table`, one statement for all; in
   * SQLite one row of parameters, the statement run once per row, since a statement costs no
   * round trip there and a row bound as it is needs no JSON (a send's payload, a JSON text inside
   * the rows' JSON, cost a fifth more CPU a send).
   */
  writeTable(alias: string, columns: [name: string, type: string][], at: number): RowsStatement;
  /**
   * After `UPDATE destinations SET …`, the rows `where` picks: PostgreSQL's up to 1000 of them that
   * no other transaction holds (`FOR UPDATE SKIP LOCKED`), the rest left for the next pass rather
   * than waited for; all of them in SQLite.
   */
  unlocked(where: string): string;
  /** Takes the advisory locks named (PostgreSQL: see advisoryLocks); nothing in SQLite. */
  lock(names: string[]): Plan<void>;
  /**
   * A statement that reads the `columns` (of `n`, a notification, and `t`, its token) of the
   * oldest queued notifications routing may take at `$1`, `$2` of them at most: PostgreSQL's from
   * `route_queue`, locked, another worker's skipped; SQLite's on its partial index of the unrouted.
   */
  takeQueued(columns: string): string;
  /** Takes routed notifications off the queue: PostgreSQL's `route_queue`; SQLite's is `routed_at` itself. */
  leaveQueue(ids: string[]): Plan<void>;
  /** The queue's oldest send, `at` (see nextDeliveryAt). */
  readonly queuedSince: string;
  /**
   * Leases the due destinations to `owner`, superseding those a newer send of their tag replaced:
   * in one statement in PostgreSQL, whose `WITH` changes rows; in three in SQLite, whose does not.
   */
  claim(options: DueClaim): Plan<ClaimedDestination[]>;
}
