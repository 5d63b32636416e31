import type { RetentionPart } from '../store.js';
import type { SqliteConnection } from './connection.js';

/**
 * Each kind's rows past retention, at most `batch` of them, in one transaction: a day's worth
 * deleted at once would hold the only writer (and this process's event loop) for as long as it takes.
 * Notifications and idempotency keys go oldest first, by their time indexes; the rest, tables with
 * no such index, in the order they were written, which is nearly theirs. A notification's
 * destinations and events go with it (ON DELETE CASCADE).
 */
export function sqlitePurge(db: SqliteConnection): RetentionPart {
  const run = (table: string, where: string, order: string, batch: number, ...values: number[]) =>
    db.run(
      `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${where} ${order} LIMIT ?)`,
      ...values,
      batch,
    );
  return {
    purge: (cutoffs, batch) =>
      db.write(() => ({
        notifications: run(
          'notifications',
          'created_at < ?',
          'ORDER BY created_at',
          batch,
          cutoffs.notificationsBefore,
        ),
        tokens: run(
          'tokens',
          'revoked_at < ? OR expires_at < ?',
          '',
          batch,
          cutoffs.credentialsBefore,
          cutoffs.credentialsBefore,
        ),
        devices: run('devices', 'active = 0 AND removed_at < ?', '', batch, cutoffs.credentialsBefore),
        accountKeys: run('retired_account_keys', 'retired_at < ?', '', batch, cutoffs.credentialsBefore),
        linkRequests: run('link_requests', 'expires_at < ?', '', batch, cutoffs.credentialsBefore),
        wrongCodes: run('link_wrong_codes', 'at < ?', '', batch, cutoffs.wrongCodesBefore),
        keys: run('idempotency_keys', 'created_at < ?', 'ORDER BY created_at', batch, cutoffs.keysBefore),
        windows: run('send_windows', 'second < ?', '', batch, Math.floor(cutoffs.windowsBefore / 1000)),
      })),
    // Nothing to do: SQLite puts the pages a delete frees on its free list, and writes new rows
    // there before it grows the file.
    reclaim: async () => {},
  };
}
