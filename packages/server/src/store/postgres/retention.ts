import type { RetentionPart } from '../store.js';
import type { PostgresConnection } from './connection.js';

export function postgresPurge(db: PostgresConnection): RetentionPart {
  return {
    purge: (cutoffs) =>
      db.transaction(async (session) => ({
        notifications: await session.count('DELETE FROM notifications WHERE created_at < $1', [
          cutoffs.notificationsBefore,
        ]),
        tokens: await session.count('DELETE FROM tokens WHERE revoked_at < $1 OR expires_at < $1', [
          cutoffs.credentialsBefore,
        ]),
        devices: await session.count('DELETE FROM devices WHERE NOT active AND removed_at < $1', [
          cutoffs.credentialsBefore,
        ]),
        keys: await session.count('DELETE FROM idempotency_keys WHERE created_at < $1', [cutoffs.keysBefore]),
        windows: await session.count('DELETE FROM send_windows WHERE second < $1', [
          Math.floor(cutoffs.windowsBefore / 1000),
        ]),
      })),
  };
}
