import type { Clock } from '../kernel/clock.js';
import { PURGE_BATCH, retentionCutoffs } from '../kernel/retention.js';
import type { Purged, RetentionPart } from './store.js';

export type { Purged };

/**
 * Deletes everything past its retention at the clock's time, in transactions of at most `batch`
 * rows of each kind, the oldest first, until a purge finds fewer than that of every kind. The
 * cut-offs are taken once, so a sweep ends however fast rows age. After each purge it rests as
 * long as that purge took, so that it takes at most half of the database's (and, on SQLite, of
 * the event loop's) time from the sends arriving meanwhile; `signal` stops it there. Once it has
 * deleted something, it has the store make the room of those rows usable by new ones (reclaim):
 * without that, a database whose own upkeep is off grows with every row ever deleted.
 */
export async function sweepRetention(
  store: RetentionPart,
  clock: Clock,
  { batch = PURGE_BATCH, signal }: { batch?: number; signal?: AbortSignal } = {},
): Promise<Purged> {
  const cutoffs = retentionCutoffs(clock.now());
  let total: Purged | undefined;
  for (;;) {
    const began = performance.now();
    const purged = await store.purge(cutoffs, batch);
    total = total ? sum(total, purged) : purged;
    if (Object.values(purged).every((count) => count < batch) || signal?.aborted) {
      if (Object.values(total).some((count) => count > 0)) await store.reclaim(total);
      return total;
    }
    await new Promise((resolve) => setTimeout(resolve, performance.now() - began));
  }
}

function sum(a: Purged, b: Purged): Purged {
  return Object.fromEntries(
    Object.entries(a).map(([kind, count]) => [kind, count + b[kind as keyof Purged]]),
  ) as Purged;
}
