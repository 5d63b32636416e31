import type { RetentionPart } from '../store.js';
import type { SqliteConnection } from './connection.js';

export function sqlitePurge(db: SqliteConnection): RetentionPart {
  return {
    purge: (cutoffs) =>
      db.write(() => ({
        notifications: db.run('DELETE FROM notifications WHERE created_at < ?', cutoffs.notificationsBefore),
        tokens: db.run(
          'DELETE FROM tokens WHERE revoked_at < ? OR expires_at < ?',
          cutoffs.credentialsBefore,
          cutoffs.credentialsBefore,
        ),
        devices: db.run('DELETE FROM devices WHERE active = 0 AND removed_at < ?', cutoffs.credentialsBefore),
        accountKeys: db.run(
          'DELETE FROM retired_account_keys WHERE retired_at < ?',
          cutoffs.credentialsBefore,
        ),
        linkRequests: db.run('DELETE FROM link_requests WHERE expires_at < ?', cutoffs.credentialsBefore),
        wrongCodes: db.run('DELETE FROM link_wrong_codes WHERE at < ?', cutoffs.wrongCodesBefore),
        keys: db.run('DELETE FROM idempotency_keys WHERE created_at < ?', cutoffs.keysBefore),
        windows: db.run(
          'DELETE FROM send_windows WHERE second < ?',
          Math.floor(cutoffs.windowsBefore / 1000),
        ),
      })),
  };
}
