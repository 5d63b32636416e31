import { utcMonth } from '../../kernel/clock.js';
import { TurnBatcher } from '../../kernel/turn-batcher.js';
import type { NewSend, SendOutcome } from '../../model/admission.js';
import { type SecondCount, windowStart } from '../../model/admission.js';
import type { Row } from '../rows.js';
import { admitInBatch, BatchCounts, type EarlierSend } from '../sql/sends.js';
import type { SendsPart } from '../store.js';
import type { PostgresConnection, Session } from './connection.js';
import { QUEUE_CHANNEL_SQL } from './queue-signal.js';

/** Sends admitted in one transaction at most, and such transactions running at once. */
const MAX_BATCH = 256;
const MAX_BATCHES_IN_FLIGHT = 4;

/**
 * Admission and storage of sends. Sends that arrive together are admitted in one transaction, as
 * on SQLite: one lock round trip, one read, one write and one commit for the batch rather than for
 * each send. A few batches run at once; while they all do, new sends wait and make the next batch
 * bigger.
 */
export function postgresSends(db: PostgresConnection): SendsPart {
  const batcher = new TurnBatcher<NewSend, SendOutcome>(
    (sends) =>
      db.transaction(
        (session) => admitBatch(session, sends),
        sends.map((send) => `account:${send.account.id}`),
      ),
    { maxBatch: MAX_BATCH, maxInFlight: MAX_BATCHES_IN_FLIGHT },
  );
  return {
    acceptSend: (send) => batcher.add(send),
    async monthlyCount(accountId, now) {
      const [row] = await db.read('SELECT count FROM monthly_usage WHERE account_id = $1 AND month = $2', [
        accountId,
        utcMonth(now),
      ]);
      return Number(row?.count ?? 0);
    },
    drained: () => batcher.idle(),
  };
}

/**
 * Admits and stores a batch, in order, under the locks of all its accounts: one account's sends
 * are admitted one at a time, in whichever process, since its token windows, account window,
 * month's count and tokens' idempotency keys are all the account's.
 */
async function admitBatch(db: Session, sends: readonly NewSend[]): Promise<SendOutcome[]> {
  // Read after the locks, so it sees every send admitted before these.
  const recent = (await db.row(
    `SELECT
       (SELECT json_agg(json_build_array(account_id, month, count)) FROM monthly_usage
         WHERE account_id = ANY($1) AND month = ANY($2)) AS monthly,
       (SELECT json_agg(json_build_array(scope, second, count)) FROM send_windows
         WHERE scope = ANY($3) AND second >= $4) AS windows,
       (SELECT json_agg(json_build_array(token_id, key, fingerprint, notification_id, request_id, created_at))
         FROM idempotency_keys WHERE (token_id, key) IN (SELECT * FROM unnest($5::text[], $6::text[]))) AS keys`,
    [
      [...new Set(sends.map((send) => send.account.id))],
      [...new Set(sends.map((send) => utcMonth(send.now)))],
      [...new Set(sends.flatMap((send) => [`token:${send.token.id}`, `account:${send.account.id}`]))],
      Math.min(...sends.map((send) => windowStart(send.now))),
      sends.filter((send) => send.idempotency).map((send) => send.token.id),
      sends.flatMap((send) => (send.idempotency ? [send.idempotency.key] : [])),
    ],
  )) as Row;

  const monthly = new Map<string, number>();
  for (const [account, month, count] of (recent.monthly ?? []) as [string, string, number][]) {
    monthly.set(`${account} ${month}`, Number(count));
  }
  const windows = new Map<string, SecondCount[]>();
  for (const [scope, second, count] of (recent.windows ?? []) as [string, number, number][]) {
    windows.set(scope, [...(windows.get(scope) ?? []), { second: Number(second), count: Number(count) }]);
  }
  const keys = new Map<string, EarlierSend>();
  const rows = (recent.keys ?? []) as [string, string, string, string, string, number][];
  for (const [token, key, fingerprint, id, requestId, createdAt] of rows) {
    keys.set(`${token} ${key}`, { fingerprint, id, requestId, createdAt: Number(createdAt) });
  }

  const accepted: NewSend[] = [];
  const counts = new BatchCounts();
  const outcomes = sends.map((send) =>
    admitInBatch(
      send,
      {
        monthlyCount: (accountId, month) => monthly.get(`${accountId} ${month}`) ?? 0,
        setMonthlyCount: (accountId, month, count) => monthly.set(`${accountId} ${month}`, count),
        window(scope) {
          const window = windows.get(scope) ?? [];
          windows.set(scope, window);
          return window;
        },
        earlier: (tokenId, key) => keys.get(`${tokenId} ${key}`),
        accepted(send) {
          // What the later sends of this batch must see.
          if (send.idempotency) {
            keys.set(`${send.token.id} ${send.idempotency.key}`, {
              fingerprint: send.idempotency.fingerprint,
              id: send.id,
              requestId: send.requestId,
              createdAt: send.now,
            });
          }
          accepted.push(send);
        },
      },
      counts,
    ),
  );
  if (accepted.length > 0) await storeAccepted(db, accepted, counts);
  return outcomes;
}

/** Everything the accepted sends of a batch write, in one statement, and the queue's signal. */
const STORE_ACCEPTED = `WITH notification AS (
    INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status,
      created_at, expires_at)
    SELECT s.id, t.account_id, s.token_id, s.request_id, s.sender_name, s.payload, 'accepted', s.created_at,
      s.expires_at
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
      AS s(id, account_id, token_id, request_id, sender_name, payload, created_at, expires_at)
    -- The token's account as it is now: a send whose credential was read before a merge moved
    -- its token lands in the account the merge moved it to.
    JOIN tokens t ON t.id = s.token_id
  ), queued AS (
    INSERT INTO route_queue (notification_id, available_at) SELECT * FROM unnest($1::text[], $7::bigint[])
  ), windows AS (
    INSERT INTO send_windows (scope, second, count)
    SELECT * FROM unnest($9::text[], $10::bigint[], $11::int[])
    ON CONFLICT (scope, second) DO UPDATE SET count = send_windows.count + excluded.count
  ), monthly AS (
    INSERT INTO monthly_usage (account_id, month, count)
    SELECT * FROM unnest($12::text[], $13::text[], $14::bigint[])
    ON CONFLICT (account_id, month) DO UPDATE SET count = monthly_usage.count + excluded.count
  ), idempotency AS (
    INSERT INTO idempotency_keys (token_id, key, fingerprint, notification_id, request_id, created_at)
    SELECT * FROM unnest($15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::bigint[])
    ON CONFLICT (token_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
      notification_id = excluded.notification_id, request_id = excluded.request_id,
      created_at = excluded.created_at
  ) SELECT pg_notify(${QUEUE_CHANNEL_SQL}, '')`;

/** Writes the accepted sends of a batch (STORE_ACCEPTED). */
async function storeAccepted(db: Session, sends: NewSend[], counts: BatchCounts): Promise<void> {
  const windows = [...counts.windows.values()];
  const months = [...counts.months.values()];
  const keyed = sends.filter((send) => send.idempotency);
  await db.rows(STORE_ACCEPTED, [
    sends.map((send) => send.id),
    sends.map((send) => send.account.id),
    sends.map((send) => send.token.id),
    sends.map((send) => send.requestId),
    sends.map((send) => send.token.name),
    sends.map((send) => JSON.stringify(send.notification)),
    sends.map((send) => send.now),
    sends.map((send) => send.now + send.notification.ttl * 1000),
    windows.map((row) => row.scope),
    windows.map((row) => row.second),
    windows.map((row) => row.count),
    months.map((row) => row.accountId),
    months.map((row) => row.month),
    months.map((row) => row.count),
    keyed.map((send) => send.token.id),
    keyed.map((send) => send.idempotency?.key),
    keyed.map((send) => send.idempotency?.fingerprint),
    keyed.map((send) => send.id),
    keyed.map((send) => send.requestId),
    keyed.map((send) => send.now),
  ]);
}
