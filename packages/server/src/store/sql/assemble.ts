import type { HealthPart, RetentionPart, Store } from '../store.js';
import { accountsAndTokens } from './accounts.js';
import { devices } from './devices.js';
import { events } from './events.js';
import { leases } from './leases.js';
import { links } from './links.js';
import type { Dialect } from './plan.js';
import { records } from './records.js';
import { routing } from './routing.js';
import { type SendBatching, sends } from './sends.js';
import { settings } from './settings.js';

/**
 * What each database does its own way, beside the operations written once: the lookup of a
 * credential (SQLite's one `api` process keeps a copy; PostgreSQL batches a turn's lookups), how
 * sends are batched (see sql/sends.ts), retention's upkeep, health (where each keeps its schema's
 * version, what makes it read-only, how it counts destinations), the queue signal (PostgreSQL's
 * LISTEN/NOTIFY) and closing.
 */
export type OwnParts = Pick<Store, 'findCredential' | 'watchQueue' | 'close'> &
  RetentionPart &
  HealthPart & { sendBatching: SendBatching };

/** The store from the operations written once, run by `d`, and the database's own parts. */
export function assembleStore(
  d: Dialect,
  own: OwnParts,
  options: {
    /** Called before a write that changes a credential (see accountsAndTokens). */
    credentialsChanged?: () => void;
    /** Told of a lease's owner before it takes its first (see routing, leases). */
    leasing?: (owner: string) => void;
    /**
     * Whether this process alone writes what every send reads (the pause, the rate windows and
     * monthly counts), and so keeps copies of them (see settings, sends).
     */
    soleWriter: boolean;
  },
): Store {
  const { sendBatching, close, ...rest } = own;
  const { drained, ...admission } = sends(d, sendBatching, options.soleWriter);
  return {
    ...rest,
    ...admission,
    async close() {
      // Sends already handed over are admitted (or refused), and durable, before the database closes.
      await drained();
      await close();
    },
    ...accountsAndTokens(d, options.credentialsChanged),
    ...devices(d),
    ...links(d),
    ...records(d),
    ...events(d),
    ...routing(d, options.leasing),
    ...leases(d, options.leasing),
    ...settings(d, options.soleWriter),
  };
}
