import type { RetentionPart } from '../store.js';
import { changes, type Dialect, type Plan } from './plan.js';

type Cutoffs = Parameters<RetentionPart['purge']>[0];
type Purged = Awaited<ReturnType<RetentionPart['purge']>>;

/** What retention deletes, table by table (notifications take their destinations and events with them). */
export function* purgeRows(d: Dialect, cutoffs: Cutoffs): Plan<Purged> {
  const before = cutoffs.credentialsBefore;
  return {
    notifications: yield* changes(
      'DELETE FROM notifications WHERE created_at < $1',
      cutoffs.notificationsBefore,
    ),
    tokens: yield* changes('DELETE FROM tokens WHERE revoked_at < $1 OR expires_at < $1', before),
    devices: yield* changes(`DELETE FROM devices WHERE active = ${d.false} AND removed_at < $1`, before),
    accountKeys: yield* changes('DELETE FROM retired_account_keys WHERE retired_at < $1', before),
    linkRequests: yield* changes('DELETE FROM link_requests WHERE expires_at < $1', before),
    wrongCodes: yield* changes('DELETE FROM link_wrong_codes WHERE at < $1', cutoffs.wrongCodesBefore),
    keys: yield* changes('DELETE FROM idempotency_keys WHERE created_at < $1', cutoffs.keysBefore),
    windows: yield* changes(
      'DELETE FROM send_windows WHERE second < $1',
      Math.floor(cutoffs.windowsBefore / 1000),
    ),
  };
}
