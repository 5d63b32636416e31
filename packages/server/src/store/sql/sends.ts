import { utcMonth } from '../../kernel/clock.js';
import { IDEMPOTENCY_KEY_LIFETIME_MS } from '../../kernel/retention.js';
import type { NewSend, SecondCount, SendOutcome } from '../../model/admission.js';
import { admit, countInWindow } from '../../model/admission.js';

// Both stores admit a batch of sends in order against copies of the counts, and add up what the
// accepted ones count once for the batch. How each reads those counts and writes the sends stays
// in its folder: SQLite keeps its copies between batches (its one `api` process is the only
// writer) and writes row by row, a statement costing no round trip; PostgreSQL reads them for
// each batch under the accounts' locks and writes the whole batch in one statement.

/** A token's earlier send with an Idempotency-Key. */
export interface EarlierSend {
  fingerprint: string;
  id: string;
  requestId: string;
  createdAt: number;
}

/** The counts a batch is admitted against, this batch's accepted sends included. */
export interface BatchCopies {
  /** The account's accepted sends in a UTC month (`YYYY-MM`). */
  monthlyCount(accountId: string, month: string): number;
  setMonthlyCount(accountId: string, month: string, count: number): void;
  /** The sends per second of a scope (`token:…`, `account:…`) in the minute before `now`. */
  window(scope: string, now: number): SecondCount[];
  /** The token's latest send with this key, of any age. */
  earlier(tokenId: string, key: string): EarlierSend | undefined;
  /** An accepted send, to store (or keep for the batch's one write), its key included. */
  accepted(send: NewSend): void;
}

/** What a batch's accepted sends add to the rate windows and the monthly counts, summed per row. */
export class BatchCounts {
  readonly windows = new Map<string, { scope: string; second: number; count: number }>();
  readonly months = new Map<string, { accountId: string; month: string; count: number }>();

  window(scope: string, second: number): void {
    const key = `${scope} ${second}`;
    const entry = this.windows.get(key);
    if (entry) entry.count += 1;
    else this.windows.set(key, { scope, second, count: 1 });
  }

  month(accountId: string, month: string): void {
    const key = `${accountId} ${month}`;
    const entry = this.months.get(key);
    if (entry) entry.count += 1;
    else this.months.set(key, { accountId, month, count: 1 });
  }
}

/** Admits one send of a batch; an accepted one is counted in the copies and the batch's counts. */
export function admitInBatch(send: NewSend, copies: BatchCopies, counts: BatchCounts): SendOutcome {
  const { now } = send;
  const month = utcMonth(now);
  const scopes = [`token:${send.token.id}`, `account:${send.account.id}`] as const;
  const outcome = admit(send, {
    monthlyCount: copies.monthlyCount(send.account.id, month),
    earlier: () => {
      const earlier = send.idempotency && copies.earlier(send.token.id, send.idempotency.key);
      return earlier && earlier.createdAt > now - IDEMPOTENCY_KEY_LIFETIME_MS ? earlier : undefined;
    },
    windows: () => ({
      tokenWindow: copies.window(scopes[0], now),
      accountWindow: copies.window(scopes[1], now),
    }),
  });
  if (outcome.kind !== 'accepted') return outcome;
  copies.accepted(send);
  const second = Math.floor(now / 1000);
  for (const scope of scopes) {
    countInWindow(copies.window(scope, now), now);
    counts.window(scope, second);
  }
  copies.setMonthlyCount(send.account.id, month, outcome.monthlyCount);
  counts.month(send.account.id, month);
  return outcome;
}
