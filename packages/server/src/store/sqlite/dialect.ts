import type { Dialect, Plan, Step } from '../sql/plan.js';
import type { SqliteConnection } from './connection.js';
import { removeDevice } from './settling.js';

/** `$1` placeholders as SQLite's `?1`, once per text. */
const texts = new Map<string, string>();
const sqliteText = (sql: string) => {
  let text = texts.get(sql);
  if (text === undefined) {
    text = sql.replace(/\$(\d+)/g, '?$1');
    texts.set(sql, text);
  }
  return text;
};
/** node:sqlite binds no booleans: stored as 1 and 0. */
const bound = (params: readonly unknown[]) =>
  params.map((value) => (typeof value === 'boolean' ? Number(value) : value));

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
  const text = sqliteText(step.sql);
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
    inList: (placeholder) => `IN (SELECT value FROM json_each(${placeholder}))`,
    list: (values) => JSON.stringify(values),
    read: async (plan) => run(db, plan),
    write: (plan) => db.write(() => run(db, plan())),
    *removeDevices(ids, now, why) {
      yield {
        native: (db: SqliteConnection) => {
          for (const id of ids) removeDevice(db, id, now, why);
        },
      };
    },
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
  };
}
