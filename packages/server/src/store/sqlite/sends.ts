import { utcMonth } from '../../kernel/clock.js';
import { TurnBatcher } from '../../kernel/turn-batcher.js';
import type { NewSend, SecondCount, SendOutcome } from '../../model/admission.js';
import { windowStart } from '../../model/admission.js';
import { admitInBatch, type BatchCopies, BatchCounts } from '../sql/sends.js';
import type { SendsPart } from '../store.js';
import type { SqliteConnection } from './connection.js';

/**
 * Admission and storage of sends. Sends arriving together share one transaction and one fsync;
 * while an fsync runs the next batch waits for it to end (committed now, it would wait for the
 * next fsync anyway, and one commit for all that arrive meanwhile costs less than one per turn).
 *
 * Every send reads its rate windows and its account's monthly count, so this keeps copies of them:
 * only the one `api` store writes these tables, so the copies cannot go stale. A batch that fails
 * drops them whole, as its counts were rolled back.
 */
export function sqliteSends(db: SqliteConnection): SendsPart {
  const windows = new Map<string, SecondCount[]>();
  const monthly = new Map<string, { month: string; count: number }>();
  const forget = () => {
    windows.clear();
    monthly.clear();
  };

  const copies: BatchCopies = {
    monthlyCount(accountId, month) {
      const copy = monthly.get(accountId);
      if (copy?.month === month) return copy.count;
      const row = db.get(
        'SELECT count FROM monthly_usage WHERE account_id = ? AND month = ?',
        accountId,
        month,
      );
      const count = Number(row?.count ?? 0);
      monthly.set(accountId, { month, count });
      return count;
    },
    setMonthlyCount: (accountId, month, count) => monthly.set(accountId, { month, count }),
    /** Read from the table once. */
    window(scope, now) {
      const since = windowStart(now);
      let window = windows.get(scope);
      if (!window) {
        const rows = db.all(
          'SELECT second, count FROM send_windows WHERE scope = ? AND second >= ? ORDER BY second',
          scope,
          since,
        );
        window = rows.map((row) => ({ second: Number(row.second), count: Number(row.count) }));
        windows.set(scope, window);
      }
      while (window.length > 0 && (window[0] as SecondCount).second < since) window.shift();
      return window;
    },
    earlier(tokenId, key) {
      const row = db.get('SELECT * FROM idempotency_keys WHERE token_id = ? AND key = ?', tokenId, key);
      return (
        row && {
          fingerprint: row.fingerprint as string,
          id: row.notification_id as string,
          requestId: row.request_id as string,
          createdAt: Number(row.created_at),
        }
      );
    },
    accepted(send) {
      // The token's account as it is now: a send whose credential was read before a merge moved
      // its token lands in the account the merge moved it to.
      db.run(
        `INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status,
           created_at, expires_at)
         SELECT ?, account_id, id, ?, ?, ?, 'accepted', ?, ? FROM tokens WHERE id = ?`,
        send.id,
        send.requestId,
        send.token.name,
        JSON.stringify(send.notification),
        send.now,
        send.now + send.notification.ttl * 1000,
        send.token.id,
      );
      if (send.idempotency) {
        db.run(
          `INSERT INTO idempotency_keys (token_id, key, fingerprint, notification_id, request_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (token_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
             notification_id = excluded.notification_id, request_id = excluded.request_id,
             created_at = excluded.created_at`,
          send.token.id,
          send.idempotency.key,
          send.idempotency.fingerprint,
          send.id,
          send.requestId,
          send.now,
        );
      }
    },
  };

  /**
   * The batch's sends counted into the rate windows and the monthly counts: one upsert per
   * second and scope, and per account and month, however many sends the batch holds.
   */
  const writeCounts = (counts: BatchCounts): void => {
    for (const { scope, second, count } of counts.windows.values()) {
      db.run(
        `INSERT INTO send_windows (scope, second, count) VALUES (?, ?, ?)
         ON CONFLICT (scope, second) DO UPDATE SET count = count + excluded.count`,
        scope,
        second,
        count,
      );
    }
    for (const { accountId, month, count } of counts.months.values()) {
      db.run(
        `INSERT INTO monthly_usage (account_id, month, count) VALUES (?, ?, ?)
         ON CONFLICT (account_id, month) DO UPDATE SET count = count + excluded.count`,
        accountId,
        month,
        count,
      );
    }
  };

  /**
   * A batch in one transaction. `isolated` puts each send in a savepoint of its own (a nested
   * transaction): one send that fails is rolled back alone, and the others still commit.
   */
  const commitBatch = (sends: readonly NewSend[], isolated: boolean): (SendOutcome | Error)[] =>
    db.transaction(() => {
      const counts = new BatchCounts();
      const results = sends.map((send) => {
        if (!isolated) return admitInBatch(send, copies, counts);
        try {
          return db.transaction(() => admitInBatch(send, copies, counts));
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      });
      writeCounts(counts);
      return results;
    });

  const batcher = new TurnBatcher<NewSend, SendOutcome>(
    async (sends) => {
      let results: (SendOutcome | Error)[];
      try {
        // A send fails only on a fault (a full disk, a broken file), so the batch first runs
        // without a savepoint per send, which costs two statements each. If one fails, the
        // whole batch rolls back and runs again with them, so that it fails alone.
        try {
          results = commitBatch(sends, false);
        } catch {
          forget();
          results = commitBatch(sends, true);
        }
      } catch (error) {
        forget();
        throw error;
      }
      await db.synced();
      return results;
    },
    { ready: () => !db.syncing },
  );
  // The sends that waited for an fsync commit at the next turn, whatever else is waiting: a
  // stream of other writes, each starting the next fsync, must not hold them back.
  db.afterSync(() => batcher.release());

  return {
    acceptSend: (send) => batcher.add(send),
    async monthlyCount(accountId, now) {
      return copies.monthlyCount(accountId, utcMonth(now));
    },
    drained: () => batcher.idle(),
  };
}
