import type { Row } from '../rows.js';
import type { Dialect, Plan } from '../sql/plan.js';
import type { PostgresConnection, Session } from './connection.js';
import { removeDevices } from './settling.js';

/** Runs a plan to its end, each statement awaited: in a transaction's session, or (reads) each on its own. */
async function run<T>(
  plan: Plan<T>,
  rows: (sql: string, values: unknown[]) => Promise<Row[]>,
  session?: Session,
): Promise<T> {
  let result: unknown;
  for (let step = plan.next(); ; step = plan.next(result)) {
    if (step.done) return step.value;
    const next = step.value;
    if ('native' in next) {
      if (!session) throw new Error('a read plan runs no native step');
      result = await (next.native as (session: Session) => unknown)(session);
    } else if (next.changes) {
      if (!session) throw new Error('a read plan changes no row');
      result = await session.count(next.sql, [...next.params]);
    } else {
      result = await rows(next.sql, [...next.params]);
    }
  }
}

export function postgresDialect(db: PostgresConnection): Dialect {
  return {
    true: 'true',
    false: 'false',
    madeOrder: 'seq',
    forUpdate: ' FOR UPDATE',
    rowAddress: 'ctid',
    amongRows: (select) => `= ANY(ARRAY(${select}))`,
    inList: (placeholder) => `= ANY(${placeholder})`,
    list: (values) => values,
    read: (plan) => run(plan, (sql, values) => db.read(sql, values)),
    async write(plan, locks = []) {
      const names = typeof locks === 'function' ? await locks() : locks;
      return db.transaction(
        (session) => run(plan(), (sql, values) => session.rows(sql, values), session),
        names,
      );
    },
    *removeDevices(ids, now, why) {
      yield { native: (session: Session) => removeDevices(session, [...ids], now, why) };
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
  };
}
