import type { HealthPart, RetentionPart, SendsPart, Store } from '../store.js';
import { accountsAndTokens } from './accounts.js';
import { devices } from './devices.js';
import { events } from './events.js';
import { leases } from './leases.js';
import { links } from './links.js';
import type { Dialect } from './plan.js';
import { records } from './records.js';
import { routing } from './routing.js';
import { settings } from './settings.js';

/**
 * What each database does its own way, beside the operations written once: the lookup of a
 * credential (SQLite's one `api` process keeps a copy; PostgreSQL batches a turn's lookups), the
 * admission of sends (see sql/sends.ts), retention's upkeep, health (where each keeps its schema's
 * version, what makes it read-only, how it counts destinations), the queue signal (PostgreSQL's
 * LISTEN/NOTIFY) and closing.
 */
export type OwnParts = Pick<Store, 'findCredential' | 'watchQueue' | 'close'> &
  RetentionPart &
  HealthPart & { sends: SendsPart };

/** The store from the operations written once, run by `d`, and the database's own parts. */
export function assembleStore(
  d: Dialect,
  own: OwnParts,
  options: {
    /** Called before a write that changes a credential (see accountsAndTokens). */
    credentialsChanged?: () => void;
    /** Told of a lease's owner before it takes its first (see routing, leases). */
    leasing?: (owner: string) => void;
    /** Whether this process alone writes the pause, and so keeps a copy of it (see settings). */
    keepPause: boolean;
  },
): Store {
  const { sends, close, ...rest } = own;
  return {
    ...rest,
    acceptSend: sends.acceptSend,
    monthlyCount: sends.monthlyCount,
    async close() {
      // Sends already handed over are admitted (or refused), and durable, before the database closes.
      await sends.drained();
      await close();
    },
    ...accountsAndTokens(d, options.credentialsChanged),
    ...devices(d),
    ...links(d),
    ...records(d),
    ...events(d),
    ...routing(d, options.leasing),
    ...leases(d, options.leasing),
    ...settings(d, options.keepPause),
  };
}
