import { utcMonth } from '../../kernel/clock.js';
import { IDEMPOTENCY_KEY_LIFETIME_MS } from '../../kernel/retention.js';
import { TurnBatcher, type TurnBatcherOptions } from '../../kernel/turn-batcher.js';
import type { NewSend, SecondCount, SendOutcome } from '../../model/admission.js';
import { admit, countInWindow, windowStart } from '../../model/admission.js';
import { jsonArrayRows, type Row } from '../rows.js';
import { isValueFault } from '../storage-errors.js';
import type { SendsPart } from '../store.js';
import { type Dialect, get, type Plan, rowsStatement, statementsOver } from './plan.js';

/**
 * How a database batches sends (see TurnBatcher): SQLite one batch at a time, started when no
 * fsync runs (`ready`; `held` is given `release` to call when one ends), since one commit then
 * covers every send that arrived meanwhile; PostgreSQL a few bounded batches at once.
 */
export type SendBatching = TurnBatcherOptions & { held?: (release: () => void) => void };

interface Admission extends SendsPart {
  /** Resolves once every send handed over is admitted (or refused) and on disk. */
  drained(): Promise<void>;
}

/** A token's earlier send with an Idempotency-Key. */
interface EarlierSend {
  fingerprint: string;
  id: string;
  requestId: string;
  createdAt: number;
}

/**
 * Admission and storage of sends. Sends that arrive together are admitted in one transaction:
 * their counts and keys are read once (in one statement, and only what `soleWriter`'s copies
 * lack), each send is admitted in order against them (this batch's accepted sends included), and
 * the accepted ones are written together (see Dialect.together), with what they add to the rate
 * windows and monthly counts summed per row. A batch that fails for one send's values runs again
 * a send at a time, so that only that send fails. PostgreSQL takes the locks of the batch's
 * accounts first: one account's sends are admitted one at a time, in whichever process, since its
 * token windows, account window, month's count and tokens' idempotency keys are all the account's.
 */
export function sends(d: Dialect, batching: SendBatching, soleWriter: boolean): Admission {
  const recent = rowsStatement(
    d,
    'k(token_id text, key text)',
    `SELECT
       (SELECT ${d.jsonArray(`'account_id', account_id, 'month', month, 'count', count`, 'account_id')}
         FROM monthly_usage WHERE account_id ${d.inList('$1')} AND month ${d.inList('$2')}) AS monthly,
       (SELECT ${d.jsonArray(`'scope', scope, 'second', second, 'count', count`, 'scope, second')}
         FROM send_windows WHERE scope ${d.inList('$3')} AND second >= $4) AS windows,
       (SELECT ${d.jsonArray(
         `'token_id', i.token_id, 'key', i.key, 'fingerprint', i.fingerprint,
          'id', i.notification_id, 'request_id', i.request_id, 'created_at', i.created_at`,
         'i.token_id, i.key',
       )} FROM idempotency_keys i JOIN $rows ON i.token_id = k.token_id AND i.key = k.key) AS keys`,
  );
  // A send lands in its token's account as it is now: one whose credential was read before a
  // merge moved its token lands in the account the merge moved it to.
  const storeNotifications = rowsStatement(
    d,
    's(id text, token_id text, request_id text, sender_name text, payload text, created_at bigint, expires_at bigint)',
    `INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status,
       created_at, expires_at)
     SELECT s.id, t.account_id, s.token_id, s.request_id, s.sender_name, s.payload, 'accepted', s.created_at,
       s.expires_at
     FROM $rows JOIN tokens t ON t.id = s.token_id`,
    'write',
  );
  // `WHERE true`: SQLite would read an upsert's `ON` after `FROM` as a join's.
  const countWindows = rowsStatement(
    d,
    'w(scope text, second bigint, count int)',
    `INSERT INTO send_windows (scope, second, count) SELECT w.scope, w.second, w.count FROM $rows WHERE true
     ON CONFLICT (scope, second) DO UPDATE SET count = send_windows.count + excluded.count`,
    'write',
  );
  const countMonths = rowsStatement(
    d,
    'm(account_id text, month text, count bigint)',
    `INSERT INTO monthly_usage (account_id, month, count) SELECT m.account_id, m.month, m.count FROM $rows WHERE true
     ON CONFLICT (account_id, month) DO UPDATE SET count = monthly_usage.count + excluded.count`,
    'write',
  );
  const storeKeys = rowsStatement(
    d,
    'k(token_id text, key text, fingerprint text, notification_id text, request_id text, created_at bigint)',
    `INSERT INTO idempotency_keys (token_id, key, fingerprint, notification_id, request_id, created_at)
     SELECT k.token_id, k.key, k.fingerprint, k.notification_id, k.request_id, k.created_at FROM $rows WHERE true
     ON CONFLICT (token_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
       notification_id = excluded.notification_id, request_id = excluded.request_id,
       created_at = excluded.created_at`,
    'write',
  );

  // The rate windows and monthly counts as last read or written, kept between batches only where
  // this process alone writes them (SQLite's one `api` process): a batch then reads only what they
  // lack. Dropped whole when a batch fails (its counts were rolled back) or they grow past MAX_KEPT.
  const kept = soleWriter
    ? { monthly: new Map<string, number>(), windows: new Map<string, SecondCount[]>() }
    : undefined;
  const forget = () => {
    kept?.monthly.clear();
    kept?.windows.clear();
  };

  /** Admits a batch in order and stores the accepted sends. */
  function* admitBatch(batch: readonly NewSend[]): Plan<SendOutcome[]> {
    if ((kept?.windows.size ?? 0) + (kept?.monthly.size ?? 0) > MAX_KEPT) forget();
    const monthly = kept?.monthly ?? new Map<string, number>();
    const windows = kept?.windows ?? new Map<string, SecondCount[]>();
    const months = batch.filter((send) => !monthly.has(monthKeyOf(send)));
    const scopes = [...new Set(batch.flatMap(scopesOf))].filter((scope) => !windows.has(scope));
    const keyed = batch.filter((send) => send.idempotency);
    const keys = new Map<string, EarlierSend>();
    if (months.length > 0 || scopes.length > 0 || keyed.length > 0) {
      const read = (yield* get(
        recent.sql,
        d.list([...new Set(months.map((send) => send.account.id))]),
        d.list([...new Set(months.map((send) => utcMonth(send.now)))]),
        d.list(scopes),
        Math.min(...batch.map((send) => windowStart(send.now))),
        ...recent.params(keyed.map((send) => [send.token.id, send.idempotency?.key])),
      )) as Row;
      for (const send of months) monthly.set(monthKeyOf(send), 0);
      for (const row of jsonArrayRows(read.monthly))
        monthly.set(keyOf(row.account_id as string, row.month as string), Number(row.count));
      for (const scope of scopes) windows.set(scope, []);
      for (const row of jsonArrayRows(read.windows)) {
        windows.get(row.scope as string)?.push({ second: Number(row.second), count: Number(row.count) });
      }
      for (const row of jsonArrayRows(read.keys)) {
        keys.set(keyOf(row.token_id as string, row.key as string), {
          fingerprint: row.fingerprint as string,
          id: row.id as string,
          requestId: row.request_id as string,
          createdAt: Number(row.created_at),
        });
      }
    }

    const accepted: NewSend[] = [];
    // What the accepted sends add to the windows and months, one row per second and scope, and
    // per account and month, however many sends the batch holds.
    const windowCounts = new Counts();
    const monthCounts = new Counts();
    const outcomes = batch.map((send) => {
      const { now } = send;
      const month = utcMonth(now);
      const monthKey = keyOf(send.account.id, month);
      const scopes = scopesOf(send);
      const start = windowStart(now);
      /** A scope's window, its seconds before `now`'s minute dropped (a kept one would grow without end). */
      const windowOf = (scope: string) => {
        // Every scope of the batch was kept or read above.
        const window = windows.get(scope) as SecondCount[];
        while (window.length > 0 && (window[0] as SecondCount).second < start) window.shift();
        return window;
      };
      const outcome = admit(send, {
        monthlyCount: monthly.get(monthKey) ?? 0,
        earlier: () => {
          const earlier = send.idempotency && keys.get(keyOf(send.token.id, send.idempotency.key));
          return earlier && earlier.createdAt > now - IDEMPOTENCY_KEY_LIFETIME_MS ? earlier : undefined;
        },
        windows: () => ({
          tokenWindow: windowOf(scopes[0] as string),
          accountWindow: windowOf(scopes[1] as string),
        }),
      });
      if (outcome.kind !== 'accepted') return outcome;
      // What the batch's later sends must see.
      accepted.push(send);
      if (send.idempotency) {
        const { key, fingerprint } = send.idempotency;
        keys.set(keyOf(send.token.id, key), {
          fingerprint,
          id: send.id,
          requestId: send.requestId,
          createdAt: now,
        });
      }
      for (const scope of scopes) {
        countInWindow(windowOf(scope), now);
        windowCounts.add(scope, Math.floor(now / 1000));
      }
      monthly.set(monthKey, outcome.monthlyCount);
      monthCounts.add(send.account.id, month);
      return outcome;
    });

    if (accepted.length === 0) return outcomes;
    const queued = d.enqueue(accepted.map((send) => [send.id, send.now]));
    yield* d.together(
      [
        ...statementsOver(
          storeNotifications,
          accepted.map((send) => [
            send.id,
            send.token.id,
            send.requestId,
            send.token.name,
            JSON.stringify(send.notification),
            send.now,
            send.now + send.notification.ttl * 1000,
          ]),
        ),
        ...queued.writes,
        ...statementsOver(countWindows, windowCounts.rows()),
        ...statementsOver(countMonths, monthCounts.rows()),
        ...statementsOver(
          storeKeys,
          accepted.flatMap(({ idempotency, ...send }) =>
            idempotency
              ? [[send.token.id, idempotency.key, idempotency.fingerprint, send.id, send.requestId, send.now]]
              : [],
          ),
        ),
      ],
      queued.signal,
    );
    return outcomes;
  }

  const admitAndStore = async (batch: readonly NewSend[]) => {
    try {
      return await d.write(
        () => admitBatch(batch),
        batch.map((send) => `account:${send.account.id}`),
      );
    } catch (error) {
      forget();
      throw error;
    }
  };

  const batcher = new TurnBatcher<NewSend, SendOutcome>(async (batch) => {
    try {
      return await admitAndStore(batch);
    } catch (error) {
      // A send whose values cannot be stored fails alone: the batch was rolled back whole, so each
      // of its sends runs again in a transaction of its own, in order. Any other failure (the
      // database down, a disk error, a timeout; or an fsync failing after the commit, which a
      // second run would count twice) fails the batch, which the senders retry.
      if (batch.length === 1 || !isValueFault(error)) throw error;
      const outcomes: (SendOutcome | Error)[] = [];
      for (const send of batch) {
        outcomes.push(
          await admitAndStore([send]).then(
            ([outcome]) => outcome as SendOutcome,
            (failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure))),
          ),
        );
      }
      return outcomes;
    }
  }, batching);
  batching.held?.(() => batcher.release());

  return {
    acceptSend: (send) => batcher.add(send),
    async monthlyCount(accountId, now) {
      const month = utcMonth(now);
      const copy = kept?.monthly.get(keyOf(accountId, month));
      if (copy !== undefined) return copy;
      const row = await d.read(
        get('SELECT count FROM monthly_usage WHERE account_id = $1 AND month = $2', accountId, month),
      );
      return Number(row?.count ?? 0);
    },
    drained: () => batcher.idle(),
  };
}

/**
 * Copies of rate windows and monthly counts kept at most (see sends): a count is some dozens of
 * bytes, a window at most 60 seconds' counts (some 3 KB), so some 30 MB at the very most.
 */
const MAX_KEPT = 10_000;

/** The key of a pair in the maps of counts, keys and rows below: an account and a month, a token and its key. */
const keyOf = (first: string, second: string | number) => `${first} ${second}`;
const monthKeyOf = (send: NewSend) => keyOf(send.account.id, utcMonth(send.now));
const scopesOf = (send: NewSend) => [`token:${send.token.id}`, `account:${send.account.id}`];

/** Rows of a two-column key and how many times each was added. */
class Counts {
  readonly #rows = new Map<string, [string, string | number, number]>();

  add(first: string, second: string | number): void {
    const key = keyOf(first, second);
    const row = this.#rows.get(key);
    if (row) row[2] += 1;
    else this.#rows.set(key, [first, second, 1]);
  }

  rows(): unknown[][] {
    return [...this.#rows.values()];
  }
}
