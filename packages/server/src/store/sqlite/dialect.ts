import { cached, type Dialect, type Plan, type Step } from '../sql/plan.js';
import { claimDue } from './claim-due.js';
import type { SqliteConnection } from './connection.js';

/** `$1` placeholders as SQLite's `?1`, once per text. */
const texts = new Map<string, string>();
const toSqlite = (sql: string) => sql.replace(/\$(\d+)/g, '?$1');
/** node:sqlite binds no booleans: stored as 1 and 0. Copied only when one is there, which is rare. */
const bound = (params: readonly unknown[]) =>
  params.some((value) => typeof value === 'boolean')
    ? params.map((value) => (typeof value === 'boolean' ? Number(value) : value))
    : params;

/** Runs a plan to its end, synchronously: inside a transaction, nothing else runs between its statements. */
function run<T>(db: SqliteConnection, plan: Plan<T>): T {
  let result: unknown;
  for (let step = plan.next(); ; step = plan.next(result)) {
    if (step.done) return step.value;
    result = perform(db, step.value);
  }
}

function perform(db: SqliteConnection, step: Step): unknown {
  if ('native' in step) return (step.native as (db: SqliteConnection) => unknown)(db);
  const text = cached(texts, step.sql, toSqlite);
  return step.changes ? db.run(text, ...bound(step.params)) : db.all(text, ...bound(step.params));
}

export function sqliteDialect(db: SqliteConnection): Dialect {
  return {
    true: '1',
    false: '0',
    madeOrder: 'rowid',
    forUpdate: '',
    rowAddress: 'rowid',
    amongRows: (select) => `IN (${select})`,
    jsonArray: (fields, order) => `json_group_array(json_object(${fields}) ORDER BY ${order})`,
    inList: (placeholder) => `IN (SELECT value FROM json_each(${placeholder}))`,
    list: (values) => JSON.stringify(values),
    read: async (plan) => run(db, plan),
    write: (plan) => db.write(() => run(db, plan())),
    writeUnsynced: async (plan) => db.transaction(() => run(db, plan())),
    *unqueue(of, now) {
      if ('accountId' in of) {
        yield {
          sql: `UPDATE notifications INDEXED BY notifications_queued SET routed_at = $1
                WHERE routed_at IS NULL AND account_id = $2`,
          params: [now, of.accountId],
        };
      } else {
        yield {
          sql: `UPDATE notifications INDEXED BY notifications_queued
                SET status = 'dropped', reason = 'token_revoked', routed_at = $1
                WHERE routed_at IS NULL AND token_id = $2 AND status = 'accepted'`,
          params: [now, of.tokenId],
        };
      }
    },
    enqueue: () => ({ writes: [] }),
    *together(writes, last) {
      for (const write of writes) yield write;
      if (last !== undefined) yield { sql: last, params: [] };
    },
    table: (alias, columns, at) => ({
      // jsonb_each: each row a binary JSON its columns are read from without parsing it again.
      sql: `(SELECT ${columns.map(([name], i) => `value ->> ${i} AS ${name}`).join(', ')}
             FROM jsonb_each($${at})) AS ${alias}`,
      params: (rows) => [JSON.stringify(rows)],
    }),
    writeTable: (alias, columns, at) => ({
      sql: `(SELECT ${columns.map(([name], i) => `$${at + i} AS ${name}`).join(', ')}) AS ${alias}`,
      params: ([row]) => row ?? [],
      each: true,
    }),
    unlocked: (where) => `WHERE ${where}`,
    *lock() {},
    takeQueued: (columns) => `SELECT ${columns}
      FROM notifications n INDEXED BY notifications_queued
      JOIN tokens t ON t.id = n.token_id
      WHERE n.routed_at IS NULL AND n.created_at <= $1 ORDER BY n.created_at, n.id LIMIT $2`,
    *leaveQueue() {},
    queuedSince:
      'SELECT min(created_at) AS at FROM notifications INDEXED BY notifications_queued WHERE routed_at IS NULL',
    claim: claimDue,
  };
}
