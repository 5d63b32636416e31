import { createHash } from 'node:crypto';
import type { HandledAction } from '@foxbell/sdk/contract';
import DataLoader from 'dataloader';
import pg from 'pg';
import { utcMonth } from '../clock.js';
import { IDEMPOTENCY_KEY_LIFETIME_MS } from '../retention.js';
import { admit, countInWindow, type SecondCount, windowStart } from './admission.js';
import { DEFAULT_POOL_SIZE, SCHEMA_NAME } from './postgres-options.js';
import { POSTGRES_MIGRATIONS } from './postgres-schema.js';
import { nextDeliveryAt, REPLACED_BY_NEWER } from './queries.js';
import {
  accountFromRow,
  claimedAtRouting,
  claimedFrom,
  deviceOf,
  maybeNumber,
  notificationOf,
  type QueuedNotification,
  type Row,
  routeInputOf,
  tokenOf,
} from './rows.js';
import { statusAfter } from './status.js';
import {
  type ClaimedDestination,
  type Credential,
  type Device,
  type FinishedAttempt,
  type NewDevice,
  type NewSend,
  type Pause,
  RETIRED_LISTED,
  type RouteDecision,
  type RouteInput,
  type SendOutcome,
  type SendToken,
  type Store,
} from './store.js';

export interface PostgresStoreOptions {
  /** A `postgres://` URL (libpq's form; `?options=` and `?sslmode=` are understood). */
  url: string;
  /** The schema holding the tables, made when missing; default: the connection's own search_path. */
  schema?: string | undefined;
  /** Connections this process opens at most. */
  poolSize?: number | undefined;
}

/** The database could not be reached or refused the connection. The message names no password. */
export class DatabaseUnreachableError extends Error {
  constructor(where: string, cause: unknown) {
    super(`cannot reach PostgreSQL at ${where}: ${(cause as Error).message}`, { cause });
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * The store for several processes on one PostgreSQL: any number of API processes and workers
 * share it. Whatever must hold across processes is decided inside the database, never in a
 * process's memory: a send is admitted under a per-account transaction lock (so concurrent
 * retries of one idempotency key make one notification, and no rate window or quota admits one
 * too many), workers lease destinations with `FOR UPDATE SKIP LOCKED`, and credentials are read
 * on every request (a revoked token stops at once, everywhere).
 *
 * Every write is a transaction committed with the server's `synchronous_commit` (on by default):
 * a `202` is on disk.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`the database schema must be lowercase letters, digits and _, not "${schema}"`);
  }
  const config: pg.PoolConfig = {
    connectionString: options.url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    // A connection that cannot be had in this time is an outage, not a queue to wait in.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'foxbell-server',
  };
  if (schema !== undefined) config.options = `-c search_path=${schema}`;
  const pool = new pg.Pool(config);
  // An idle connection that breaks (the database restarted) is dropped from the pool and
  // replaced on the next query; without a listener the error would end the process.
  pool.on('error', () => {});
  try {
    await migrate(pool, schema);
  } catch (error) {
    await pool.end();
    const code = (error as { code?: string }).code;
    if (code !== undefined && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|28|3D)/.test(code)) {
      throw new DatabaseUnreachableError(whereOf(options.url), error);
    }
    throw error;
  }
  return new PostgresStore(pool);
}

/** host:port/database of a URL, without its user or password. */
function whereOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'the given --database URL';
  }
}

/** A 64-bit advisory lock key for a name. */
function lockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

/**
 * Statements taking the transaction-scoped advisory locks of `names`, in one round trip and in one
 * order everywhere, so two transactions that each take several cannot deadlock.
 */
function advisoryLocks(names: string[]): string {
  return [...new Set(names.map(lockKey))]
    .sort()
    .map((key) => `SELECT pg_advisory_xact_lock(${key})`)
    .join('; ');
}

async function migrate(pool: pg.Pool, schema: string | undefined): Promise<void> {
  const client = await pool.connect();
  const key = lockKey(`foxbell:migrate:${schema ?? ''}`);
  try {
    // Session-level: held across the migrations' own transactions, and released by the server if
    // this process dies while holding it.
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS foxbell_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)',
    );
    const { rows } = await client.query(
      'SELECT coalesce(max(version), 0) AS applied FROM foxbell_migrations',
    );
    const applied = Number(rows[0].applied);
    for (const [index, sql] of POSTGRES_MIGRATIONS.entries()) {
      if (index < applied) continue;
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO foxbell_migrations (version, applied_at) VALUES ($1, now())', [
          index + 1,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => {});
    client.release();
  }
}

/** Errors after which PostgreSQL has rolled the transaction back and running it again is safe. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_TRANSACTION_RUNS = 5;

/** Queries on one connection, each prepared once per connection. */
class Session {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: Map<string, string>,
  ) {}

  async rows(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.#query(text, values)).rows as Row[];
  }

  async row(text: string, values: unknown[] = []): Promise<Row | undefined> {
    return (await this.rows(text, values))[0];
  }

  /** How many rows a statement changed. */
  async count(text: string, values: unknown[] = []): Promise<number> {
    return (await this.#query(text, values)).rowCount ?? 0;
  }

  #query(text: string, values: unknown[]): Promise<pg.QueryResult> {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `foxbell_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return this.client.query({ name, text, values });
  }

  /** Runs statements without parameters in one round trip (the simple protocol). */
  async simple(text: string): Promise<void> {
    await this.client.query(text);
  }
}

/**
 * A notification row with its destinations and handled events aggregated in the same statement
 * (`n` is the notification): one round trip, and one snapshot, for a whole record.
 */
const WITH_DELIVERY = `n.*,
  (SELECT coalesce(json_agg(json_build_object('device_id', d.device_id, 'platform', d.platform,
     'state', d.state, 'push_status', d.push_status, 'updated_at', d.updated_at) ORDER BY d.seq), '[]')
   FROM destinations d WHERE d.notification_id = n.id) AS destination_rows,
  (SELECT coalesce(json_agg(json_build_object('device_id', h.device_id, 'platform', h.platform,
     'action', h.action, 'at', h.at) ORDER BY h.seq), '[]')
   FROM handled_events h WHERE h.notification_id = n.id) AS handled_rows`;

const storedNotificationOf = (row: Row) =>
  notificationOf(row, row.destination_rows as Row[], row.handled_rows as Row[]);

/** Sends admitted in one transaction at most, and such transactions running at once. */
const MAX_BATCH = 256;
const MAX_BATCHES_IN_FLIGHT = 4;

interface PendingSend {
  send: NewSend;
  resolve: (outcome: SendOutcome) => void;
  reject: (error: unknown) => void;
}

class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  #pending: PendingSend[] = [];
  #flushScheduled = false;
  #batchesInFlight = 0;
  /** What `close` waits on: called once no send is pending or being admitted. */
  readonly #drained: (() => void)[] = [];
  /** Statement names by text: the same name prepares the same text on every connection. */
  readonly #names = new Map<string, string>();

  /**
   * Credentials and the admin pause are read on every request, from the database (any process may
   * have revoked a token or paused sends). Requests that arrive in the same turn of the event loop
   * share one query, made after all of them arrived, so none sees a state older than its arrival.
   */
  readonly #credentials = new DataLoader((hashes: readonly string[]) => this.#lookUpCredentials(hashes), {
    cache: false,
    batchScheduleFn: (callback) => setImmediate(callback),
  });
  readonly #pause = new DataLoader(
    async (keys: readonly string[]) => {
      const value = await this.getSetting('pause');
      const pause: Pause = value ? (JSON.parse(value) as Pause) : { paused: false, retryAfterSeconds: 0 };
      return keys.map(() => pause);
    },
    { cache: false, batchScheduleFn: (callback) => setImmediate(callback) },
  );

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * A read is one statement, outside a transaction; a statement sees the database as of one moment.
   * So an answer assembled from several tables is read in one statement (a status record is a
   * notification with its destinations and events: WITH_DELIVERY), never in two, between which a
   * worker's commit could land and the record contradict itself (a destination accepted while the
   * notification is still accepted). Taking one statement, this cannot be written otherwise.
   */
  async #read(text: string, values: unknown[] = []): Promise<Row[]> {
    const client = await this.#pool.connect();
    try {
      return await new Session(client, this.#names).rows(text, values);
    } finally {
      client.release();
    }
  }

  /**
   * Runs `work` in one transaction. The advisory locks named in `locks` are taken first, in the
   * same round trip as BEGIN (see advisoryLocks), and held to the end. A deadlock or serialization
   * failure is run again from the start.
   */
  async #transaction<T>(work: (db: Session) => Promise<T>, locks: string[] = []): Promise<T> {
    const begin = locks.length === 0 ? 'BEGIN' : `BEGIN; ${advisoryLocks(locks)}`;
    for (let run = 1; ; run += 1) {
      const client = await this.#pool.connect();
      const db = new Session(client, this.#names);
      let broken: Error | undefined;
      try {
        await db.simple(begin);
        const result = await work(db);
        await db.simple('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackFailed: Error) => {
          broken = rollbackFailed;
        });
        const code = (error as { code?: string }).code;
        if (broken === undefined && code !== undefined && RETRYABLE.has(code) && run < MAX_TRANSACTION_RUNS) {
          continue;
        }
        throw error;
      } finally {
        // A connection whose rollback failed is in an unknown state: close it, do not reuse it.
        client.release(broken);
      }
    }
  }

  findCredential(secretHash: string): Promise<Credential | undefined> {
    return this.#credentials.load(secretHash);
  }

  /** The credentials behind secret hashes, in at most three queries for all of them. */
  async #lookUpCredentials(hashes: readonly string[]): Promise<(Credential | undefined)[]> {
    // A secret is a send token, an account key or a retired account key: one statement asks all three.
    const rows = await this.#read(
      `SELECT 'send' AS kind, t.secret_hash AS hash, row_to_json(t) AS token, row_to_json(a) AS account
         FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.secret_hash = ANY($1)
       UNION ALL
       SELECT 'account', a.key_hash, NULL, row_to_json(a) FROM accounts a WHERE a.key_hash = ANY($1)
       UNION ALL
       SELECT 'retired_account_key', r.key_hash, NULL, row_to_json(a)
         FROM retired_account_keys r JOIN accounts a ON a.id = r.account_id WHERE r.key_hash = ANY($1)`,
      [hashes],
    );
    const found = new Map<string, Credential>();
    for (const row of rows) {
      const account = accountFromRow(row.account as Row);
      const hash = row.hash as string;
      if (row.kind === 'send') found.set(hash, { kind: 'send', token: tokenOf(row.token as Row), account });
      else if (row.kind === 'account') found.set(hash, { kind: 'account', account });
      else found.set(hash, { kind: 'retired_account_key', account });
    }
    return hashes.map((hash) => found.get(hash));
  }

  async createAccount(account: { id: string; name: string | null; keyHash: string; now: number }) {
    const row = await this.#transaction((db) =>
      db.row(
        `INSERT INTO accounts (id, name, key_hash, key_generation, created_at) VALUES ($1, $2, $3, 1, $4)
         RETURNING *`,
        [account.id, account.name, account.keyHash, account.now],
      ),
    );
    return accountFromRow(row as Row);
  }

  async rotateAccountKey(
    accountId: string,
    change: { keyHash: string; expectedGeneration: number | undefined; now: number },
  ) {
    return this.#transaction(async (db) => {
      const row = (await db.row('SELECT key_hash, key_generation FROM accounts WHERE id = $1 FOR UPDATE', [
        accountId,
      ])) as Row;
      const generation = Number(row.key_generation);
      if (change.expectedGeneration !== undefined && change.expectedGeneration !== generation) {
        return { ok: false, generation } as const;
      }
      await db.rows(
        'INSERT INTO retired_account_keys (key_hash, account_id, retired_at) VALUES ($1, $2, $3)',
        [row.key_hash, accountId, change.now],
      );
      await db.rows('UPDATE accounts SET key_hash = $1, key_generation = $2 WHERE id = $3', [
        change.keyHash,
        generation + 1,
        accountId,
      ]);
      return { ok: true, generation: generation + 1 } as const;
    });
  }

  async deleteAccount(accountId: string, now: number) {
    await this.#transaction(async (db) => {
      await db.rows('UPDATE accounts SET deleted_at = $1 WHERE id = $2', [now, accountId]);
      await db.rows('UPDATE devices SET active = false, removed_at = $1 WHERE account_id = $2 AND active', [
        now,
        accountId,
      ]);
      await db.rows(
        `UPDATE destinations SET state = 'skipped', updated_at = $1
         WHERE state = 'pending' AND notification_id IN (SELECT id FROM notifications WHERE account_id = $2)`,
        [now, accountId],
      );
      await db.rows(
        'DELETE FROM route_queue WHERE notification_id IN (SELECT id FROM notifications WHERE account_id = $1)',
        [accountId],
      );
    });
  }

  async createToken(token: Omit<SendToken, 'revokedAt'>, secretHash: string, maxTokens: number) {
    // The account's lock: two tokens made at once cannot both take the last place.
    return this.#transaction(
      async (db): Promise<SendToken | 'limit_reached'> => {
        const live = (await db.row(
          'SELECT count(*) AS n FROM tokens WHERE account_id = $1 AND revoked_at IS NULL',
          [token.accountId],
        )) as Row;
        if (Number(live.n) >= maxTokens) return 'limit_reached';
        await db.rows(
          `INSERT INTO tokens (id, account_id, secret_hash, name, kind, own_status, device_names, scenes,
           allow_urls, default_target, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [
            token.id,
            token.accountId,
            secretHash,
            token.name,
            token.kind,
            token.ownStatus,
            token.deviceNames,
            token.scenes === null ? null : JSON.stringify(token.scenes),
            token.allowUrls,
            token.defaultTarget,
            token.expiresAt,
            token.createdAt,
          ],
        );
        return { ...token, revokedAt: null };
      },
      [`account:${token.accountId}`],
    );
  }

  async listTokens(accountId: string, now: number) {
    return (
      await this.#read(
        `SELECT * FROM (
           SELECT *, row_number() OVER (PARTITION BY retired ORDER BY created_at DESC, seq DESC) AS newest
           FROM (SELECT t.*, revoked_at IS NOT NULL OR coalesce(expires_at <= $2, false) AS retired
                 FROM tokens t WHERE account_id = $1) classified) listed
         WHERE NOT retired OR newest <= $3 ORDER BY created_at, seq`,
        [accountId, now, RETIRED_LISTED],
      )
    ).map(tokenOf);
  }

  async revokeToken(accountId: string, tokenId: string, now: number) {
    return this.#transaction(async (db) => {
      const changed = await db.count(
        'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL',
        [now, tokenId, accountId],
      );
      if (changed === 0) {
        return (
          (await db.row('SELECT 1 FROM tokens WHERE id = $1 AND account_id = $2', [tokenId, accountId])) !==
          undefined
        );
      }
      // Deleting the queue entries first waits for a worker routing them: what it routed stays routed.
      await db.rows(
        `DELETE FROM route_queue WHERE notification_id IN
           (SELECT id FROM notifications WHERE token_id = $1 AND routed_at IS NULL AND status = 'accepted')`,
        [tokenId],
      );
      await db.rows(
        `UPDATE notifications SET status = 'dropped', reason = 'token_revoked'
         WHERE token_id = $1 AND routed_at IS NULL AND status = 'accepted'`,
        [tokenId],
      );
      return true;
    });
  }

  async createDevice(device: NewDevice, maxDevices: number) {
    // The push token's lock: two accounts registering one phone at once cannot both succeed. The
    // account's: two devices registered at once cannot both take the last place.
    return this.#transaction(
      async (db): Promise<Device | 'limit_reached' | 'device_exists'> => {
        const holders = await db.rows('SELECT id, account_id FROM devices WHERE push_token = $1 AND active', [
          device.pushToken,
        ]);
        if (holders.some((holder) => holder.account_id === device.accountId)) return 'device_exists';
        const active = (await db.row('SELECT count(*) AS n FROM devices WHERE account_id = $1 AND active', [
          device.accountId,
        ])) as Row;
        if (Number(active.n) >= maxDevices) return 'limit_reached';
        await this.#deactivateDevices(
          db,
          holders.map((holder) => holder.id as string),
          device.now,
        );
        const row = await db.row(
          `INSERT INTO devices (id, account_id, name, platform, push_token, in_auto, active, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, true, $7) RETURNING *`,
          [
            device.id,
            device.accountId,
            device.name,
            device.platform,
            device.pushToken,
            device.inAuto,
            device.now,
          ],
        );
        return deviceOf(row as Row);
      },
      [`push_token:${device.pushToken}`, `account:${device.accountId}`],
    );
  }

  async listDevices(accountId: string, options: { activeOnly: boolean }) {
    return (
      await this.#read(
        options.activeOnly
          ? 'SELECT * FROM devices WHERE account_id = $1 AND active ORDER BY created_at, seq'
          : `SELECT * FROM (
               SELECT d.*, row_number() OVER (PARTITION BY active ORDER BY created_at DESC, seq DESC) AS newest
               FROM devices d WHERE account_id = $1) listed
             WHERE active OR newest <= $2 ORDER BY created_at, seq`,
        options.activeOnly ? [accountId] : [accountId, RETIRED_LISTED],
      )
    ).map(deviceOf);
  }

  async updateDevice(accountId: string, deviceId: string, change: { name?: string; inAuto?: boolean }) {
    return this.#transaction(async (db) => {
      const row = await db.row(
        `UPDATE devices SET name = coalesce($1, name), in_auto = coalesce($2, in_auto)
         WHERE id = $3 AND account_id = $4 AND active RETURNING *`,
        [change.name ?? null, change.inAuto ?? null, deviceId, accountId],
      );
      return row && deviceOf(row);
    });
  }

  async removeDevice(accountId: string, deviceId: string, now: number) {
    return this.#transaction(async (db) => {
      if (
        !(await db.row('SELECT 1 FROM devices WHERE id = $1 AND account_id = $2 AND active', [
          deviceId,
          accountId,
        ]))
      ) {
        return false;
      }
      await this.#deactivateDevices(db, [deviceId], now);
      return true;
    });
  }

  acceptSend(send: NewSend): Promise<SendOutcome> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ send, resolve, reject });
      this.#flushSoon();
    });
  }

  /**
   * Sends that arrive together are admitted in one transaction, as on SQLite: one lock round trip,
   * one read, one write and one commit for the batch rather than for each send. A few batches run
   * at once; while they all do, new sends wait and make the next batch bigger.
   */
  #flushSoon(): void {
    if (this.#flushScheduled || this.#batchesInFlight >= MAX_BATCHES_IN_FLIGHT) return;
    this.#flushScheduled = true;
    // setImmediate, not a microtask: requests whose bytes are already read join this batch.
    setImmediate(() => {
      this.#flushScheduled = false;
      const batch = this.#pending.splice(0, MAX_BATCH);
      if (batch.length === 0) return;
      this.#batchesInFlight += 1;
      const accounts = batch.map(({ send }) => `account:${send.account.id}`);
      this.#transaction(
        (db) =>
          this.#admitBatch(
            db,
            batch.map(({ send }) => send),
          ),
        accounts,
      )
        .then(
          (outcomes) => {
            for (const [index, pending] of batch.entries()) pending.resolve(outcomes[index] as SendOutcome);
          },
          (error: unknown) => {
            for (const pending of batch) pending.reject(error);
          },
        )
        .finally(() => {
          this.#batchesInFlight -= 1;
          if (this.#pending.length > 0) this.#flushSoon();
          else if (this.#batchesInFlight === 0) for (const resolve of this.#drained.splice(0)) resolve();
        });
      if (this.#pending.length > 0) this.#flushSoon();
    });
  }

  /**
   * Admits and stores a batch, in order, under the locks of all its accounts: one account's sends
   * are admitted one at a time, in whichever process, since its token windows, account window,
   * month's count and tokens' idempotency keys are all the account's.
   */
  async #admitBatch(db: Session, sends: NewSend[]): Promise<SendOutcome[]> {
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
    const keys = new Map<string, { fingerprint: string; id: string; requestId: string; createdAt: number }>();
    for (const [token, key, fingerprint, id, requestId, createdAt] of (recent.keys ?? []) as string[][]) {
      keys.set(`${token} ${key}`, {
        fingerprint: fingerprint as string,
        id: id as string,
        requestId: requestId as string,
        createdAt: Number(createdAt),
      });
    }

    const accepted: NewSend[] = [];
    const outcomes = sends.map((send): SendOutcome => {
      const { now } = send;
      const monthKey = `${send.account.id} ${utcMonth(now)}`;
      const monthlyCount = monthly.get(monthKey) ?? 0;
      const keyOf = (key: string) => `${send.token.id} ${key}`;
      const tokenScope = `token:${send.token.id}`;
      const accountScope = `account:${send.account.id}`;
      const windowOf = (scope: string) => {
        const window = windows.get(scope) ?? [];
        windows.set(scope, window);
        return window;
      };
      const outcome = admit(send, {
        monthlyCount,
        earlier: () => {
          const earlier = send.idempotency && keys.get(keyOf(send.idempotency.key));
          return earlier && earlier.createdAt > now - IDEMPOTENCY_KEY_LIFETIME_MS ? earlier : undefined;
        },
        windows: () => ({ tokenWindow: windowOf(tokenScope), accountWindow: windowOf(accountScope) }),
      });
      if (outcome.kind !== 'accepted') return outcome;
      // What the later sends of this batch must see.
      for (const scope of [tokenScope, accountScope]) countInWindow(windowOf(scope), now);
      monthly.set(monthKey, outcome.monthlyCount);
      if (send.idempotency) {
        keys.set(keyOf(send.idempotency.key), {
          fingerprint: send.idempotency.fingerprint,
          id: send.id,
          requestId: send.requestId,
          createdAt: now,
        });
      }
      accepted.push(send);
      return outcome;
    });
    if (accepted.length > 0) await this.#storeAccepted(db, accepted);
    return outcomes;
  }

  /** Everything the accepted sends of a batch write, in one statement. */
  async #storeAccepted(db: Session, sends: NewSend[]): Promise<void> {
    const add = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
    const windows = new Map<string, number>();
    const months = new Map<string, number>();
    for (const send of sends) {
      const second = Math.floor(send.now / 1000);
      add(windows, `token:${send.token.id} ${second}`);
      add(windows, `account:${send.account.id} ${second}`);
      add(months, `${send.account.id} ${utcMonth(send.now)}`);
    }
    const split = (counts: Map<string, number>) => {
      const pairs = [...counts.keys()].map((key) => key.split(' ') as [string, string]);
      return [pairs.map(([a]) => a), pairs.map(([, b]) => b), [...counts.values()]];
    };
    const keyed = sends.filter((send) => send.idempotency);
    await db.rows(
      `WITH notification AS (
         INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status,
           created_at, expires_at)
         SELECT id, account_id, token_id, request_id, sender_name, payload, 'accepted', created_at, expires_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
           AS s(id, account_id, token_id, request_id, sender_name, payload, created_at, expires_at)
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
       ) SELECT 1`,
      [
        sends.map((send) => send.id),
        sends.map((send) => send.account.id),
        sends.map((send) => send.token.id),
        sends.map((send) => send.requestId),
        sends.map((send) => send.token.name),
        sends.map((send) => JSON.stringify(send.notification)),
        sends.map((send) => send.now),
        sends.map((send) => send.now + send.notification.ttl * 1000),
        ...split(windows),
        ...split(months),
        keyed.map((send) => send.token.id),
        keyed.map((send) => send.idempotency?.key),
        keyed.map((send) => send.idempotency?.fingerprint),
        keyed.map((send) => send.id),
        keyed.map((send) => send.requestId),
        keyed.map((send) => send.now),
      ],
    );
  }

  async monthlyCount(accountId: string, now: number) {
    const [row] = await this.#read('SELECT count FROM monthly_usage WHERE account_id = $1 AND month = $2', [
      accountId,
      utcMonth(now),
    ]);
    return Number(row?.count ?? 0);
  }

  /** Notification rows with their destinations and handled events, in two queries for all of them. */
  async getNotification(id: string) {
    const [row] = await this.#read(`SELECT ${WITH_DELIVERY} FROM notifications n WHERE n.id = $1`, [id]);
    return row && storedNotificationOf(row);
  }

  async recordEvent(event: {
    accountId: string;
    notificationId: string;
    deviceId: string;
    action: HandledAction;
    now: number;
  }) {
    return this.#transaction(async (db): Promise<'recorded' | 'no_notification' | 'no_device'> => {
      const notification = await db.row(
        'SELECT status FROM notifications WHERE id = $1 AND account_id = $2 FOR UPDATE',
        [event.notificationId, event.accountId],
      );
      if (!notification) return 'no_notification';
      const device = await db.row('SELECT platform FROM devices WHERE id = $1 AND account_id = $2', [
        event.deviceId,
        event.accountId,
      ]);
      if (!device) return 'no_device';
      await db.rows(
        'INSERT INTO handled_events (notification_id, device_id, platform, action, at) VALUES ($1, $2, $3, $4, $5)',
        [event.notificationId, event.deviceId, device.platform, event.action, event.now],
      );
      const status = statusAfter(String(notification.status), event.action);
      if (status)
        await db.rows('UPDATE notifications SET status = $1 WHERE id = $2', [status, event.notificationId]);
      return 'recorded';
    });
  }

  async inbox(
    accountId: string,
    page: { after: { createdAt: number; id: string } | undefined; limit: number; since: number },
  ) {
    const rows = page.after
      ? await this.#read(
          `SELECT ${WITH_DELIVERY} FROM notifications n
           WHERE n.account_id = $1 AND n.created_at >= $2 AND (n.created_at, n.id) < ($3, $4)
           ORDER BY n.created_at DESC, n.id DESC LIMIT $5`,
          [accountId, page.since, page.after.createdAt, page.after.id, page.limit + 1],
        )
      : await this.#read(
          `SELECT ${WITH_DELIVERY} FROM notifications n WHERE n.account_id = $1 AND n.created_at >= $2
           ORDER BY n.created_at DESC, n.id DESC LIMIT $3`,
          [accountId, page.since, page.limit + 1],
        );
    const items = rows.slice(0, page.limit).map(storedNotificationOf);
    const last = items.at(-1);
    return {
      items,
      next: rows.length > page.limit && last ? { createdAt: last.createdAt, id: last.id } : undefined,
    };
  }

  async routeQueued(options: {
    now: number;
    limit: number;
    decide: (input: RouteInput) => RouteDecision;
    lease?: { owner: string; leaseMs: number; limit: number };
  }) {
    const { now, decide, lease } = options;
    // With a lease, no more notifications than it has room for: each is dropped or makes at least
    // one destination, so that many fill it without routing far ahead of the pushes.
    const limit = lease ? Math.min(options.limit, lease.limit) : options.limit;
    return this.#transaction(async (db) => {
      // Another worker's batch is skipped, not waited for: each queued notification is routed once.
      const queued = await db.rows(
        `SELECT n.id, n.account_id, n.payload, n.sender_name, n.created_at, n.expires_at,
           t.revoked_at AS token_revoked_at, t.expires_at AS token_expires_at
         FROM route_queue q
         JOIN notifications n ON n.id = q.notification_id
         JOIN tokens t ON t.id = n.token_id
         WHERE q.available_at <= $1 ORDER BY q.available_at, q.notification_id LIMIT $2
         FOR UPDATE OF q SKIP LOCKED`,
        [now, limit],
      );
      if (queued.length === 0) return { routed: 0, claimed: [] };
      const accountIds = [...new Set(queued.map((row) => row.account_id as string))];
      const devicesOf = new Map<string, Device[]>(accountIds.map((id) => [id, []]));
      for (const row of await db.rows(
        'SELECT * FROM devices WHERE account_id = ANY($1) AND active ORDER BY created_at, seq',
        [accountIds],
      )) {
        devicesOf.get(row.account_id as string)?.push(deviceOf(row));
      }

      const drops: { id: string; reason: string }[] = [];
      const plain: DestinationRow[] = [];
      const tagged: (DestinationRow & { tag: string })[] = [];
      for (const row of queued) {
        const notification = routeInputOf(row, devicesOf.get(row.account_id as string) ?? []);
        const { tag } = notification;
        const decision = decide(notification.input);
        if (decision.kind === 'drop') {
          drops.push({ id: notification.input.notification.id, reason: decision.reason });
          continue;
        }
        for (const { device, apnsId } of decision.destinations) {
          if (tag === null) plain.push({ notification, device, apnsId });
          else tagged.push({ notification, device, apnsId, tag });
        }
      }

      if (drops.length > 0) {
        await db.rows(
          `UPDATE notifications n SET status = 'dropped', reason = d.reason, routed_at = $3
           FROM unnest($1::text[], $2::text[]) AS d(id, reason) WHERE n.id = d.id`,
          [drops.map((d) => d.id), drops.map((d) => d.reason), now],
        );
      }
      // Untagged destinations take the lease's room first, in queue order; tagged ones the rest.
      const leased = plain.slice(0, lease?.limit ?? 0);
      const claimed = leased.map((d) => claimedAtRouting(d.notification, d.device, d.apnsId));
      await this.#insertDestinations(db, leased, lease, now);
      await this.#insertDestinations(db, plain.slice(leased.length), undefined, now);
      if (tagged.length > 0) {
        // Sends of one tag to one device are routed one at a time, in whichever worker: the locks
        // are all taken first (see advisoryLocks), then the destinations are made in queue order,
        // oldest send first.
        await db.simple(advisoryLocks(tagged.map((d) => `tag:${d.device.id}:${d.tag}`)));
        // Leased here but not pushed until this returns: a newer send of their tag routed in the
        // same call supersedes them, as it would a pending one.
        const leasedTagged = new Map<string, ClaimedDestination>();
        for (const d of tagged) {
          const key = `${d.device.id} ${d.tag}`;
          const state = await this.#insertTagged(
            db,
            d,
            lease && claimed.length < lease.limit ? lease : undefined,
            now,
          );
          if (state === 'superseded') continue;
          const older = leasedTagged.get(key);
          if (older) {
            await db.rows(
              `UPDATE destinations SET state = 'superseded', attempts = 0, lease_owner = NULL, lease_until = NULL,
                 updated_at = $1 WHERE notification_id = $2 AND device_id = $3`,
              [now, older.notificationId, older.deviceId],
            );
            claimed.splice(claimed.indexOf(older), 1);
            leasedTagged.delete(key);
          }
          if (state === 'sending') {
            const destination = claimedAtRouting(d.notification, d.device, d.apnsId);
            claimed.push(destination);
            leasedTagged.set(key, destination);
          }
        }
      }
      const ids = queued.map((row) => row.id as string);
      const dropped = new Set(drops.map((d) => d.id));
      const routed = ids.filter((id) => !dropped.has(id));
      if (routed.length > 0) {
        await db.rows('UPDATE notifications SET routed_at = $1 WHERE id = ANY($2)', [now, routed]);
      }
      await db.rows('DELETE FROM route_queue WHERE notification_id = ANY($1)', [ids]);
      return { routed: queued.length, claimed };
    });
  }

  /** Destinations in one statement: `pending`, or `sending` under `lease` (their first attempt). */
  async #insertDestinations(
    db: Session,
    rows: DestinationRow[],
    lease: { owner: string; leaseMs: number } | undefined,
    now: number,
    state: 'pending' | 'superseded' = 'pending',
    tag: string | null = null,
  ): Promise<void> {
    if (rows.length === 0) return;
    await db.rows(
      `INSERT INTO destinations (notification_id, device_id, platform, state, attempts, next_attempt_at,
         updated_at, apns_id, tag, created_at, expires_at, lease_owner, lease_until)
       SELECT d.id, d.device_id, d.platform, $6, $10, $7, $7, d.apns_id, $8, d.created_at, d.expires_at, $11, $12
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $9::bigint[])
         AS d(id, device_id, platform, apns_id, created_at, expires_at)`,
      [
        rows.map((d) => d.notification.input.notification.id),
        rows.map((d) => d.device.id),
        rows.map((d) => d.device.platform),
        rows.map((d) => d.apnsId),
        rows.map((d) => d.notification.input.notification.createdAt),
        lease ? 'sending' : state,
        now,
        tag,
        rows.map((d) => d.notification.input.notification.expiresAt),
        lease ? 1 : 0,
        lease?.owner ?? null,
        lease ? now + lease.leaseMs : null,
      ],
    );
  }

  /** One tagged destination, superseding or superseded by its tag's others on the device; its state. */
  async #insertTagged(
    db: Session,
    d: DestinationRow & { tag: string },
    lease: { owner: string; leaseMs: number } | undefined,
    now: number,
  ): Promise<'pending' | 'sending' | 'superseded'> {
    // A send routed late must not replace a newer one of its tag; otherwise it replaces the
    // older ones still waiting on this device, whoever sent them.
    const { id, createdAt } = d.notification.input.notification;
    const newer = await db.row(
      'SELECT 1 FROM destinations WHERE device_id = $1 AND tag = $2 AND created_at > $3 LIMIT 1',
      [d.device.id, d.tag, createdAt],
    );
    if (newer) {
      await this.#insertDestinations(db, [d], undefined, now, 'superseded', d.tag);
      return 'superseded';
    }
    await db.rows(
      `UPDATE destinations SET state = 'superseded', updated_at = $1
       WHERE device_id = $2 AND tag = $3 AND state = 'pending' AND notification_id != $4`,
      [now, d.device.id, d.tag, id],
    );
    await this.#insertDestinations(db, [d], lease, now, 'pending', d.tag);
    return lease ? 'sending' : 'pending';
  }

  async claimDestinations(options: {
    owner: string;
    now: number;
    leaseMs: number;
    limit: number;
    maxAttempts: number;
  }) {
    const { owner, now, leaseMs, limit, maxAttempts } = options;
    return this.#transaction(async (db): Promise<ClaimedDestination[]> => {
      const ended = new Set<string>();
      // A lease that ran out belongs to a worker that died mid-push: that attempt counted. Rows
      // another transaction holds are left for the next pass rather than waited for.
      for (const row of await db.rows(
        `UPDATE destinations d
         SET state = CASE WHEN d.attempts >= $1 THEN 'failed_permanent' ELSE 'pending' END,
           lease_owner = NULL, lease_until = NULL, next_attempt_at = $2, updated_at = $2
         FROM (SELECT notification_id, device_id FROM destinations
               WHERE state = 'sending' AND lease_until <= $2 LIMIT 1000 FOR UPDATE SKIP LOCKED) AS due
         WHERE d.notification_id = due.notification_id AND d.device_id = due.device_id
         RETURNING d.notification_id, d.state`,
        [maxAttempts, now],
      )) {
        if (row.state === 'failed_permanent') ended.add(row.notification_id as string);
      }
      for (const row of await db.rows(
        `UPDATE destinations d SET state = 'expired', updated_at = $1
         FROM (SELECT notification_id, device_id FROM destinations
               WHERE state = 'pending' AND expires_at <= $1 LIMIT 1000 FOR UPDATE SKIP LOCKED) AS due
         WHERE d.notification_id = due.notification_id AND d.device_id = due.device_id
         RETURNING d.notification_id`,
        [now],
      )) {
        ended.add(row.notification_id as string);
      }
      await this.#settle(db, [...ended]);

      // The due rows are leased, but those a newer send of their tag replaced are superseded.
      const due = await db.rows(
        `WITH due AS (
           SELECT d.notification_id, d.device_id, ${REPLACED_BY_NEWER} AS replaced FROM destinations d
           WHERE d.state = 'pending' AND d.next_attempt_at <= $1
           ORDER BY d.next_attempt_at, d.seq LIMIT $2 FOR UPDATE SKIP LOCKED
         ), claimed AS (
           UPDATE destinations d
           SET state = CASE WHEN due.replaced THEN 'superseded' ELSE 'sending' END,
             attempts = CASE WHEN due.replaced THEN d.attempts ELSE d.attempts + 1 END,
             lease_owner = CASE WHEN due.replaced THEN NULL ELSE $3 END,
             lease_until = CASE WHEN due.replaced THEN NULL ELSE $4::bigint END, updated_at = $1
           FROM due WHERE d.notification_id = due.notification_id AND d.device_id = due.device_id
           RETURNING d.notification_id, d.device_id, d.platform, d.attempts, d.apns_id, d.created_at,
             d.expires_at, d.seq, d.state
         )
         SELECT c.*, v.push_token, v.created_at AS device_created_at, n.payload, n.sender_name
         FROM claimed c
         JOIN devices v ON v.id = c.device_id
         JOIN notifications n ON n.id = c.notification_id
         WHERE c.state = 'sending'
         ORDER BY c.seq`,
        [now, limit, owner, now + leaseMs],
      );
      return claimedFrom(due, (row) => Number(row.attempts));
    });
  }

  async finishAttempts(attempts: FinishedAttempt[], now: number) {
    if (attempts.length === 0) return;
    await this.#transaction(async (db) => {
      // Every attempt's end in one statement. Only the lease holder may end an attempt: an answer
      // that comes back after another worker took the destination over changes nothing.
      const ended = await db.rows(
        `UPDATE destinations d SET
           state = CASE e.kind WHEN 'accepted' THEN 'accepted' WHEN 'failed_permanent' THEN 'failed_permanent'
                   ELSE 'pending' END,
           push_status = CASE WHEN e.kind = 'released' THEN d.push_status ELSE e.push_status END,
           -- Released: never attempted after all, so uncounted.
           attempts = CASE WHEN e.kind = 'released' THEN d.attempts - 1 ELSE d.attempts END,
           next_attempt_at = CASE e.kind WHEN 'retry' THEN e.next_attempt_at WHEN 'released' THEN $7
                             ELSE d.next_attempt_at END,
           lease_owner = NULL, lease_until = NULL, updated_at = $7
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[])
           AS e(notification_id, device_id, owner, kind, push_status, next_attempt_at)
         WHERE d.notification_id = e.notification_id AND d.device_id = e.device_id
           AND d.state = 'sending' AND d.lease_owner = e.owner
         RETURNING d.notification_id, d.device_id, e.kind`,
        [
          attempts.map((a) => a.notificationId),
          attempts.map((a) => a.deviceId),
          attempts.map((a) => a.owner),
          attempts.map((a) => a.end.kind),
          attempts.map(({ end }) => (end.kind === 'released' ? null : end.pushStatus)),
          attempts.map(({ end }) => (end.kind === 'retry' ? end.nextAttemptAt : null)),
          now,
        ],
      );
      const deactivating = new Set(
        attempts
          .filter((a) => a.end.kind === 'failed_permanent' && a.end.deactivateDevice)
          .map((a) => `${a.notificationId} ${a.deviceId}`),
      );
      const sent = ended.filter((row) => row.kind === 'accepted').map((row) => row.notification_id as string);
      const failed = ended.filter((row) => row.kind === 'failed_permanent');
      const deactivate = failed
        .filter((row) => deactivating.has(`${row.notification_id} ${row.device_id}`))
        .map((row) => row.device_id as string);
      // Destinations first, then notifications in id order (see #settle): a transaction holding a
      // notification's lock never waits for a destination's, so workers cannot deadlock.
      const skipped = await this.#skipWaiting(db, deactivate, now);
      if (sent.length > 0) {
        await this.#lockNotifications(db, sent);
        await db.rows(
          `UPDATE notifications SET status = 'sent_to_push' WHERE id = ANY($1) AND status = 'accepted'`,
          [[...new Set(sent)]],
        );
      }
      await this.#settle(db, [...failed.map((row) => row.notification_id as string), ...skipped]);
    });
  }

  /** Deactivates devices and skips what still waits for them (see #skipWaiting), then settles. */
  async #deactivateDevices(db: Session, deviceIds: string[], now: number): Promise<void> {
    await this.#settle(db, await this.#skipWaiting(db, deviceIds, now));
  }

  /**
   * The devices leave lists and `auto` (removed, or APNs said the push token is gone), and what
   * still waits for them is skipped. Returns the notifications whose destinations it skipped.
   */
  async #skipWaiting(db: Session, deviceIds: string[], now: number): Promise<string[]> {
    if (deviceIds.length === 0) return [];
    await db.rows('UPDATE devices SET active = false, removed_at = $1 WHERE id = ANY($2) AND active', [
      now,
      deviceIds,
    ]);
    const rows = await db.rows(
      `UPDATE destinations SET state = 'skipped', updated_at = $1 WHERE device_id = ANY($2) AND state = 'pending'
       RETURNING notification_id`,
      [now, deviceIds],
    );
    return rows.map((row) => row.notification_id as string);
  }

  /** Locks notification rows in id order, so two transactions never wait for each other's. */
  async #lockNotifications(db: Session, ids: string[]): Promise<void> {
    await db.rows('SELECT 1 FROM notifications WHERE id = ANY($1) ORDER BY id FOR UPDATE', [
      [...new Set(ids)],
    ]);
  }

  /**
   * A notification none of whose devices has it or may still get it, and whose deadline stopped
   * at least one of them, is dropped as `expired`: ttl ran out first. The notification's lock is
   * taken first and the check is a later statement, so of two workers ending its last two
   * destinations at once, the second sees the first's change.
   */
  async #settle(db: Session, notificationIds: string[]): Promise<void> {
    if (notificationIds.length === 0) return;
    await this.#lockNotifications(db, notificationIds);
    await db.rows(
      `UPDATE notifications n SET status = 'dropped', reason = 'expired'
       WHERE n.id = ANY($1) AND n.status = 'accepted'
         AND NOT EXISTS (SELECT 1 FROM destinations WHERE notification_id = n.id
                         AND state IN ('pending', 'sending', 'accepted'))
         AND EXISTS (SELECT 1 FROM destinations WHERE notification_id = n.id AND state = 'expired')`,
      [[...new Set(notificationIds)]],
    );
  }

  async nextDeliveryAt() {
    const [row] = await this.#read(nextDeliveryAt('SELECT min(available_at) AS at FROM route_queue'));
    return maybeNumber(row?.at) ?? undefined;
  }

  getPause(): Promise<Pause> {
    return this.#pause.load('pause');
  }

  async setPause(pause: Pause) {
    await this.setSetting('pause', JSON.stringify(pause));
  }

  async getSetting(name: string) {
    const [row] = await this.#read('SELECT value FROM settings WHERE name = $1', [name]);
    return row?.value as string | undefined;
  }

  async setSetting(name: string, value: string) {
    await this.#transaction((db) =>
      db.rows(
        'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        [name, value],
      ),
    );
  }

  async purge(cutoffs: {
    notificationsBefore: number;
    keysBefore: number;
    windowsBefore: number;
    credentialsBefore: number;
  }) {
    return this.#transaction(async (db) => ({
      notifications: await db.count('DELETE FROM notifications WHERE created_at < $1', [
        cutoffs.notificationsBefore,
      ]),
      tokens: await db.count('DELETE FROM tokens WHERE revoked_at < $1 OR expires_at < $1', [
        cutoffs.credentialsBefore,
      ]),
      devices: await db.count('DELETE FROM devices WHERE NOT active AND removed_at < $1', [
        cutoffs.credentialsBefore,
      ]),
      keys: await db.count('DELETE FROM idempotency_keys WHERE created_at < $1', [cutoffs.keysBefore]),
      windows: await db.count('DELETE FROM send_windows WHERE second < $1', [
        Math.floor(cutoffs.windowsBefore / 1000),
      ]),
    }));
  }

  async close() {
    // Sends already handed to the store are admitted (or refused) before the connections close.
    while (this.#pending.length > 0 || this.#batchesInFlight > 0) {
      await new Promise<void>((resolve) => this.#drained.push(resolve));
    }
    await this.#pool.end();
  }
}

/** A destination routing decided on, before it is written. */
interface DestinationRow {
  notification: QueuedNotification;
  device: Device;
  apnsId: string;
}
