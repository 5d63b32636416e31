import { cached, type Dialect, type Plan, type Statement } from '../sql/plan.js';
import { claimDue } from './claim-due.js';
import { advisoryLocks, type PostgresConnection, type Session } from './connection.js';
import { QUEUE_CHANNEL_SQL } from './queue-signal.js';

const ENQUEUE =
  'INSERT INTO route_queue (notification_id, available_at) SELECT * FROM unnest($1::text[], $2::bigint[])';
const SIGNAL_QUEUE = `SELECT pg_notify(${QUEUE_CHANNEL_SQL}, '')`;

/** Statements as the parts of one `WITH` whose query is `last`, each one's `$n` moved past the parts' before it. */
function withParts(writes: Statement[], last: string): string {
  let at = 0;
  const parts = writes.map((write, i) => {
    const offset = at;
    at += write.params.length;
    return `w${i} AS (${write.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  return `WITH ${parts.join(', ')} ${last}`;
}

/** Runs a plan to its end, each statement awaited: in a transaction's session, or (reads) each on its own. */
async function run<T>(db: PostgresConnection, plan: Plan<T>, session?: Session): Promise<T> {
  let result: unknown;
  for (let step = plan.next(); ; step = plan.next(result)) {
    if (step.done) return step.value;
    const next = step.value;
    if ('native' in next) {
      if (!session) throw new Error('a read plan runs no native step');
      result = await (next.native as (session: Session) => unknown)(session);
    } else if (next.changes) {
      if (!session) throw new Error('a read plan changes no row');
      result = await session.count(next.sql, next.params as unknown[]);
    } else {
      const params = next.params as unknown[];
      result = await (session ? session.rows(next.sql, params) : db.read(next.sql, params));
    }
  }
}

export function postgresDialect(db: PostgresConnection): Dialect {
  /** `together`'s texts, by the texts they join: a few, since a store's write lists are fixed. */
  const together = new Map<string, string>();
  return {
    true: 'true',
    false: 'false',
    madeOrder: 'seq',
    forUpdate: ' FOR UPDATE',
    rowAddress: 'ctid',
    amongRows: (select) => `= ANY(ARRAY(${select}))`,
    jsonArray: (fields, order) => `coalesce(json_agg(json_build_object(${fields}) ORDER BY ${order}), '[]')`,
    inList: (placeholder) => `= ANY(${placeholder})`,
    list: (values) => values,
    read: (plan) => run(db, plan),
    async write(plan, locks = []) {
      const names = typeof locks === 'function' ? await locks() : locks;
      return db.transaction((session) => run(db, plan(), session), names);
    },
    // Every commit is durable here (synchronous_commit): delivery's too.
    writeUnsynced(plan) {
      return this.write(plan);
    },
    // The queue is a table of its own here: taking an entry off it needs no time.
    *unqueue(of) {
      if ('accountId' in of) {
        yield {
          sql: 'DELETE FROM route_queue WHERE notification_id IN (SELECT id FROM notifications WHERE account_id = $1)',
          params: [of.accountId],
        };
        return;
      }
      // Deleting the queue entries first waits for a worker routing them: what it routed stays routed.
      yield {
        sql: `DELETE FROM route_queue WHERE notification_id IN
                (SELECT id FROM notifications WHERE token_id = $1 AND routed_at IS NULL AND status = 'accepted')`,
        params: [of.tokenId],
      };
      yield {
        sql: `UPDATE notifications SET status = 'dropped', reason = 'token_revoked'
              WHERE token_id = $1 AND routed_at IS NULL AND status = 'accepted'`,
        params: [of.tokenId],
      };
    },
    enqueue: (rows) => ({
      writes: [{ sql: ENQUEUE, params: [rows.map(([id]) => id), rows.map(([, at]) => at)] }],
      signal: SIGNAL_QUEUE,
    }),
    *together(writes, last = 'SELECT 1') {
      if (writes.length === 0) return;
      const key = `${writes.map((write) => write.sql).join('\0')}\0${last}`;
      const sql = cached(together, key, () => withParts(writes, last));
      yield { sql, params: writes.flatMap((write) => write.params) };
    },
    table: (alias, columns, at) => ({
      sql: `unnest(${columns.map(([, type], i) => `$${at + i}::${type}[]`).join(', ')})
            AS ${alias}(${columns.map(([name]) => name).join(', ')})`,
      params: (rows) => columns.map((_, i) => rows.map((row) => row[i])),
    }),
    writeTable(alias, columns, at) {
      return this.table(alias, columns, at);
    },
    unlocked: (where) => `FROM (SELECT notification_id, device_id FROM destinations
        WHERE ${where} LIMIT 1000 FOR UPDATE SKIP LOCKED) AS due
      WHERE destinations.notification_id = due.notification_id AND destinations.device_id = due.device_id`,
    *lock(names) {
      yield { native: (session: Session) => session.simple(advisoryLocks(names)) };
    },
    // Another worker's chunk is skipped, not waited for: each queued notification is routed once.
    takeQueued: (columns) => `SELECT ${columns}
      FROM route_queue q
      JOIN notifications n ON n.id = q.notification_id
      JOIN tokens t ON t.id = n.token_id
      WHERE q.available_at <= $1 ORDER BY q.available_at, q.notification_id LIMIT $2
      FOR UPDATE OF q SKIP LOCKED`,
    *leaveQueue(ids) {
      yield { sql: 'DELETE FROM route_queue WHERE notification_id = ANY($1)', params: [ids] };
    },
    queuedSince: 'SELECT min(available_at) AS at FROM route_queue',
    claim: claimDue,
  };
}
