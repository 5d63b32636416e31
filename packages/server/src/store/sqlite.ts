import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import type { HandledAction } from '@foxbell/sdk/contract';
import { utcMonth } from '../clock.js';
import { IDEMPOTENCY_KEY_LIFETIME_MS } from '../retention.js';
import { admit, countInWindow, type SecondCount, windowStart } from './admission.js';
import { makeDataDirPrivate } from './data-dir.js';
import { nextDeliveryAt, REPLACED_BY_NEWER } from './queries.js';
import {
  accountFromRow,
  claimedAtRouting,
  claimedFrom,
  deviceOf,
  joinedAccountFromRow,
  maybeNumber,
  notificationOf,
  type QueuedNotification,
  type Row,
  routeInputOf,
  tokenOf,
} from './rows.js';
import {
  DatabaseSync,
  inTransaction,
  pragmaValue,
  type SQLInputValue,
  type StatementSync,
  sqliteStorageCode,
} from './sqlite-database.js';
import { SQLITE_MIGRATIONS } from './sqlite-schema.js';
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
  type StoredNotification,
} from './store.js';

export interface SqliteStoreOptions {
  /** A directory for `foxbell.db`, or `:memory:` for a database that lives as long as the store. */
  dataDir: string;
  /**
   * `api` (the default) serves sends and keeps copies of rate windows, counts and credentials,
   * so only one `api` store may have a database open: a second one fails with
   * `DataDirInUseError`. `worker` only delivers; any number may share the database with it.
   */
  role?: 'api' | 'worker';
}

/** Another process already serves sends from this data directory. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(`another foxbell-server is serving sends from ${dataDir}; stop it, or run this one as a worker`);
    this.name = 'DataDirInUseError';
  }
}

/**
 * The embedded store: one SQLite file in WAL mode. No write is reported done before it is on
 * disk, and sends arriving together share one commit.
 *
 * Durability is `synchronous=FULL`'s, with the fsync moved off the event loop: SQLite commits
 * with `synchronous=NORMAL` (the WAL is written, not synced), and the store then fsyncs the WAL
 * file itself on libuv's thread pool, resolving each write only once an fsync that began after
 * its commit has finished. A commit with FULL would block the whole process for the fsync; this
 * way the next batch is parsed, validated and committed while the previous one is being synced,
 * and one fsync covers every commit before it. (Linux fsync flushes the file, whichever
 * descriptor asks; SQLite itself syncs the WAL before every checkpoint, whichever process runs it.)
 *
 * Delivery bookkeeping (routing, leases, attempt ends) commits without waiting for the fsync: a
 * power cut can lose its last moments, and then a destination is pushed once more, which its
 * fixed `apns-id` and the tag's collapse id make harmless. An accepted send is never lost.
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  if (options.dataDir === ':memory:') {
    return new SqliteStore(prepare(new DatabaseSync(':memory:')), undefined, undefined);
  }
  makeDataDirPrivate(options.dataDir);
  const apiLock = (options.role ?? 'api') === 'api' ? lockApi(options.dataDir) : undefined;
  const file = path.join(options.dataDir, 'foxbell.db');
  const db = prepare(new DatabaseSync(file));
  const wal = openSync(`${file}-wal`, 'r+');
  makeDataDirPrivate(options.dataDir);
  // The new files' directory entries, and everything the migrations wrote.
  for (const fd of [openSync(options.dataDir, 'r'), wal]) fsyncSync(fd);
  return new SqliteStore(db, wal, apiLock);
}

/**
 * Holds an exclusive lock on `api.lock` for the life of the store. The operating system drops it
 * when the process ends, however it ends, so a crash never leaves a stale lock behind.
 */
function lockApi(dataDir: string): DatabaseSync {
  const lock = new DatabaseSync(path.join(dataDir, 'api.lock'), { timeout: 0 });
  try {
    lock.exec('PRAGMA locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS held (at INTEGER); DELETE FROM held;');
    return lock;
  } catch (error) {
    lock.close();
    if (sqliteStorageCode(error) === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir);
    throw error;
  }
}

function prepare(db: DatabaseSync): DatabaseSync {
  db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000',
  );
  migrate(db);
  return db;
}

function migrate(db: DatabaseSync): void {
  const applied = Number(pragmaValue(db, 'user_version'));
  for (const [index, sql] of SQLITE_MIGRATIONS.entries()) {
    if (index < applied) continue;
    inTransaction(db, () => {
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${index + 1}`);
    });
  }
}

const int = (value: boolean) => (value ? 1 : 0);

/** Queued notifications read at a time when routing leases what it routes. */
const ROUTE_CHUNK = 32;

/** The routing queue's oldest send: the queue is the notifications not yet routed. */
const QUEUED_SINCE =
  'SELECT min(created_at) AS at FROM notifications INDEXED BY notifications_queued WHERE routed_at IS NULL';

interface PendingSend {
  send: NewSend;
  resolve: (outcome: SendOutcome) => void;
  reject: (error: unknown) => void;
}

/** What a batch's sends add to the rate windows and the monthly counts, summed per row. */
class BatchCounts {
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

type BatchResult = { ok: true; outcome: SendOutcome } | { ok: false; error: unknown };

class SqliteStore implements Store {
  readonly #db: DatabaseSync;
  /** The WAL file, fsync'd before a write is reported; undefined for an in-memory database. */
  readonly #wal: number | undefined;
  readonly #statements = new Map<string, StatementSync>();
  #pending: PendingSend[] = [];
  #flushScheduled = false;
  #pause: Pause | undefined;
  /**
   * Copies of what every send reads: rate windows, monthly counts and credentials. Only the one
   * `api` store writes these tables (workers never do), so the copies cannot go stale; every
   * write that changes a credential clears them. Dropped whole when a batch fails.
   */
  readonly #windows = new Map<string, SecondCount[]>();
  readonly #monthly = new Map<string, { month: string; count: number }>();
  readonly #credentials = new Map<string, Credential>();
  #syncing = false;
  /** Writes committed since the fsync in progress began: they wait for the next one. */
  #awaitingSync: ((error: Error | null) => void)[] = [];

  /** One send, in a savepoint of its batch's transaction. */
  readonly #storeSend: (send: NewSend, counts: BatchCounts) => SendOutcome;
  /** A batch of sends in one transaction; `isolated` puts each send in a savepoint of its own. */
  readonly #commitBatch: (batch: PendingSend[], isolated: boolean) => BatchResult[];

  /** The `api.lock` database, held open (and locked) until close; see `lockApi`. */
  readonly #apiLock: DatabaseSync | undefined;

  constructor(db: DatabaseSync, wal: number | undefined, apiLock: DatabaseSync | undefined) {
    this.#db = db;
    this.#wal = wal;
    this.#apiLock = apiLock;
    // A nested transaction is a savepoint: one send that fails is rolled back alone, and the
    // others still commit in the batch's single fsync.
    this.#storeSend = (send: NewSend, counts: BatchCounts) =>
      inTransaction(db, () => this.#admitAndStore(send, counts));
    this.#commitBatch = (batch: PendingSend[], isolated: boolean) =>
      inTransaction(db, () => {
        const counts = new BatchCounts();
        const results = batch.map(({ send }): BatchResult => {
          if (!isolated) return { ok: true, outcome: this.#admitAndStore(send, counts) };
          try {
            return { ok: true, outcome: this.#storeSend(send, counts) };
          } catch (error) {
            return { ok: false, error };
          }
        });
        this.#writeCounts(counts);
        return results;
      });
  }

  #forget(): void {
    this.#windows.clear();
    this.#monthly.clear();
    this.#credentials.clear();
  }

  /** Resolves once everything committed so far is on disk. */
  #synced(): Promise<void> {
    const wal = this.#wal;
    if (wal === undefined) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#awaitingSync.push((error) => (error ? reject(error) : resolve()));
      if (!this.#syncing) this.#startSync(wal);
    });
  }

  #startSync(wal: number): void {
    const waiting = this.#awaitingSync;
    this.#awaitingSync = [];
    this.#syncing = true;
    // fdatasync: the WAL's bytes and its size, which a later read needs, without its timestamps,
    // which nothing reads.
    fdatasync(wal, (error) => {
      this.#syncing = false;
      for (const done of waiting) done(error);
      // The sends that waited for this fsync commit at the next turn, whatever else is waiting:
      // a stream of other writes, each starting the next fsync, must not hold them back.
      this.#flushSoon();
      if (this.#awaitingSync.length > 0) this.#startSync(wal);
    });
  }

  /** Runs `change` in one transaction and resolves once it is durable. */
  async #write<T>(change: () => T): Promise<T> {
    const result = inTransaction(this.#db, change);
    await this.#synced();
    return result;
  }

  /** Prepares each SQL text once. */
  #sql(text: string): StatementSync {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.#db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  #get(text: string, ...params: unknown[]): Row | undefined {
    return this.#sql(text).get(...(params as SQLInputValue[])) as Row | undefined;
  }

  #all(text: string, ...params: unknown[]): Row[] {
    return this.#sql(text).all(...(params as SQLInputValue[])) as Row[];
  }

  #run(text: string, ...params: unknown[]): number {
    return Number(this.#sql(text).run(...(params as SQLInputValue[])).changes);
  }

  async findCredential(secretHash: string): Promise<Credential | undefined> {
    const cached = this.#credentials.get(secretHash);
    if (cached) return cached;
    const found = this.#lookUpCredential(secretHash);
    // Bounded: a flood of distinct valid secrets cannot grow it without end.
    if (this.#credentials.size >= 10_000) this.#credentials.clear();
    if (found) this.#credentials.set(secretHash, found);
    return found;
  }

  #lookUpCredential(secretHash: string): Credential | undefined {
    // One query for the common case, a send token: the token row and its account together.
    const token = this.#get(
      `SELECT t.*, a.id AS a_id, a.name AS a_name, a.key_generation AS a_key_generation,
         a.created_at AS a_created_at, a.deleted_at AS a_deleted_at
       FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.secret_hash = ?`,
      secretHash,
    );
    if (token) {
      return { kind: 'send', token: tokenOf(token), account: joinedAccountFromRow(token) };
    }
    const account = this.#get('SELECT * FROM accounts WHERE key_hash = ?', secretHash);
    if (account) return { kind: 'account', account: accountFromRow(account) };
    const retired = this.#get(
      'SELECT a.* FROM retired_account_keys r JOIN accounts a ON a.id = r.account_id WHERE r.key_hash = ?',
      secretHash,
    );
    return retired && { kind: 'retired_account_key', account: accountFromRow(retired) };
  }

  async createAccount(account: { id: string; name: string | null; keyHash: string; now: number }) {
    await this.#write(() =>
      this.#run(
        'INSERT INTO accounts (id, name, key_hash, key_generation, created_at) VALUES (?, ?, ?, 1, ?)',
        account.id,
        account.name,
        account.keyHash,
        account.now,
      ),
    );
    return accountFromRow(this.#get('SELECT * FROM accounts WHERE id = ?', account.id) as Row);
  }

  async rotateAccountKey(
    accountId: string,
    change: { keyHash: string; expectedGeneration: number | undefined; now: number },
  ) {
    this.#credentials.clear();
    return this.#write(() => {
      const row = this.#get('SELECT key_hash, key_generation FROM accounts WHERE id = ?', accountId) as Row;
      const generation = Number(row.key_generation);
      if (change.expectedGeneration !== undefined && change.expectedGeneration !== generation) {
        return { ok: false, generation } as const;
      }
      this.#run(
        'INSERT INTO retired_account_keys (key_hash, account_id, retired_at) VALUES (?, ?, ?)',
        row.key_hash,
        accountId,
        change.now,
      );
      this.#run(
        'UPDATE accounts SET key_hash = ?, key_generation = ? WHERE id = ?',
        change.keyHash,
        generation + 1,
        accountId,
      );
      return { ok: true, generation: generation + 1 } as const;
    });
  }

  async deleteAccount(accountId: string, now: number) {
    this.#credentials.clear();
    await this.#write(() => {
      this.#run('UPDATE accounts SET deleted_at = ? WHERE id = ?', now, accountId);
      this.#run(
        'UPDATE devices SET active = 0, removed_at = ? WHERE account_id = ? AND active = 1',
        now,
        accountId,
      );
      this.#run(
        `UPDATE destinations SET state = 'skipped', updated_at = ?
         WHERE state = 'pending' AND notification_id IN (SELECT id FROM notifications WHERE account_id = ?)`,
        now,
        accountId,
      );
      this.#run(
        `UPDATE notifications INDEXED BY notifications_queued SET routed_at = ?
         WHERE routed_at IS NULL AND account_id = ?`,
        now,
        accountId,
      );
    });
  }

  async createToken(token: Omit<SendToken, 'revokedAt'>, secretHash: string, maxTokens: number) {
    return this.#write((): SendToken | 'limit_reached' => {
      const live = this.#get(
        'SELECT count(*) AS n FROM tokens WHERE account_id = ? AND revoked_at IS NULL',
        token.accountId,
      ) as Row;
      if (Number(live.n) >= maxTokens) return 'limit_reached';
      this.#run(
        `INSERT INTO tokens (id, account_id, secret_hash, name, kind, own_status, device_names, scenes,
           allow_urls, default_target, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        token.id,
        token.accountId,
        secretHash,
        token.name,
        token.kind,
        int(token.ownStatus),
        int(token.deviceNames),
        token.scenes === null ? null : JSON.stringify(token.scenes),
        int(token.allowUrls),
        token.defaultTarget,
        token.expiresAt,
        token.createdAt,
      );
      return { ...token, revokedAt: null };
    });
  }

  async listTokens(accountId: string, now: number) {
    return this.#all(
      `SELECT * FROM (
         SELECT *, row_number() OVER (PARTITION BY retired ORDER BY created_at DESC, r DESC) AS newest
         FROM (SELECT t.*, t.rowid AS r, revoked_at IS NOT NULL OR coalesce(expires_at <= ?, 0) AS retired
               FROM tokens t WHERE account_id = ?))
       WHERE NOT retired OR newest <= ? ORDER BY created_at, r`,
      now,
      accountId,
      RETIRED_LISTED,
    ).map(tokenOf);
  }

  async revokeToken(accountId: string, tokenId: string, now: number) {
    this.#credentials.clear();
    return this.#write(() => {
      const changed = this.#run(
        'UPDATE tokens SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL',
        now,
        tokenId,
        accountId,
      );
      if (changed === 0) {
        return (
          this.#get('SELECT 1 FROM tokens WHERE id = ? AND account_id = ?', tokenId, accountId) !== undefined
        );
      }
      this.#run(
        `UPDATE notifications INDEXED BY notifications_queued
         SET status = 'dropped', reason = 'token_revoked', routed_at = ?
         WHERE routed_at IS NULL AND token_id = ? AND status = 'accepted'`,
        now,
        tokenId,
      );
      return true;
    });
  }

  async createDevice(device: NewDevice, maxDevices: number) {
    return this.#write((): Device | 'limit_reached' | 'device_exists' => {
      const holders = this.#all(
        'SELECT id, account_id FROM devices WHERE push_token = ? AND active = 1',
        device.pushToken,
      );
      if (holders.some((holder) => holder.account_id === device.accountId)) return 'device_exists';
      const active = this.#get(
        'SELECT count(*) AS n FROM devices WHERE account_id = ? AND active = 1',
        device.accountId,
      ) as Row;
      if (Number(active.n) >= maxDevices) return 'limit_reached';
      for (const holder of holders) this.#deactivateDevice(holder.id as string, device.now);
      this.#run(
        `INSERT INTO devices (id, account_id, name, platform, push_token, in_auto, active, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 1, ?)`,
        device.id,
        device.accountId,
        device.name,
        device.platform,
        device.pushToken,
        int(device.inAuto),
        device.now,
      );
      return deviceOf(this.#get('SELECT * FROM devices WHERE id = ?', device.id) as Row);
    });
  }

  async listDevices(accountId: string, options: { activeOnly: boolean }) {
    if (options.activeOnly) return this.#activeDevices(accountId);
    return this.#all(
      `SELECT * FROM (
         SELECT d.*, d.rowid AS r,
           row_number() OVER (PARTITION BY active ORDER BY created_at DESC, rowid DESC) AS newest
         FROM devices d WHERE account_id = ?)
       WHERE active = 1 OR newest <= ? ORDER BY created_at, r`,
      accountId,
      RETIRED_LISTED,
    ).map(deviceOf);
  }

  /** The devices sends may reach (and a send token may list), oldest first. */
  #activeDevices(accountId: string): Device[] {
    return this.#all(
      'SELECT * FROM devices WHERE account_id = ? AND active = 1 ORDER BY created_at, rowid',
      accountId,
    ).map(deviceOf);
  }

  async updateDevice(accountId: string, deviceId: string, change: { name?: string; inAuto?: boolean }) {
    return this.#write(() => {
      const row = this.#get(
        'SELECT * FROM devices WHERE id = ? AND account_id = ? AND active = 1',
        deviceId,
        accountId,
      );
      if (!row) return undefined;
      const device = deviceOf(row);
      const name = change.name ?? device.name;
      const inAuto = change.inAuto ?? device.inAuto;
      this.#run('UPDATE devices SET name = ?, in_auto = ? WHERE id = ?', name, int(inAuto), deviceId);
      return { ...device, name, inAuto };
    });
  }

  async removeDevice(accountId: string, deviceId: string, now: number) {
    return this.#write(() => {
      if (
        !this.#get(
          'SELECT 1 FROM devices WHERE id = ? AND account_id = ? AND active = 1',
          deviceId,
          accountId,
        )
      ) {
        return false;
      }
      this.#deactivateDevice(deviceId, now);
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
   * Commits the waiting sends at the next turn of the event loop (setImmediate, not a microtask:
   * requests whose bytes are already read join the batch), unless an fsync is running. Then they
   * wait for it to end: committed now they would wait for the next fsync anyway, and one commit
   * for all that arrive meanwhile costs less than one per turn of the loop.
   */
  #flushSoon(): void {
    if (this.#flushScheduled || this.#syncing || this.#pending.length === 0) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = [];
    this.#flushScheduled = false;
    let results: BatchResult[];
    try {
      // A send fails only on a fault (a full disk, a broken file), so the batch first runs
      // without a savepoint per send, which costs two statements each. If one fails, the
      // whole batch rolls back and runs again with them, so that it fails alone.
      try {
        results = this.#commitBatch(batch, false);
      } catch {
        this.#forget();
        results = this.#commitBatch(batch, true);
      }
    } catch (error) {
      this.#forget();
      for (const pending of batch) pending.reject(error);
      return;
    }
    this.#synced().then(
      () =>
        results.forEach((result, index) => {
          const pending = batch[index] as PendingSend;
          if (result.ok) pending.resolve(result.outcome);
          else pending.reject(result.error);
        }),
      (error: unknown) => {
        for (const pending of batch) pending.reject(error);
      },
    );
  }

  #admitAndStore(send: NewSend, counts: BatchCounts): SendOutcome {
    const { now } = send;
    const month = utcMonth(now);
    const tokenScope = `token:${send.token.id}`;
    const accountScope = `account:${send.account.id}`;
    const monthlyCount = this.#monthlyCountOf(send.account.id, month);
    const outcome = admit(send, {
      monthlyCount,
      earlier: () => {
        const row = send.idempotency
          ? this.#get(
              'SELECT * FROM idempotency_keys WHERE token_id = ? AND key = ? AND created_at > ?',
              send.token.id,
              send.idempotency.key,
              now - IDEMPOTENCY_KEY_LIFETIME_MS,
            )
          : undefined;
        return (
          row && {
            fingerprint: row.fingerprint as string,
            id: row.notification_id as string,
            requestId: row.request_id as string,
          }
        );
      },
      windows: () => ({
        tokenWindow: this.#windowOf(tokenScope, now),
        accountWindow: this.#windowOf(accountScope, now),
      }),
    });
    if (outcome.kind !== 'accepted') return outcome;

    this.#run(
      `INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status,
         created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, 'accepted', ?, ?)`,
      send.id,
      send.account.id,
      send.token.id,
      send.requestId,
      send.token.name,
      JSON.stringify(send.notification),
      now,
      now + send.notification.ttl * 1000,
    );
    if (send.idempotency) {
      this.#run(
        `INSERT INTO idempotency_keys (token_id, key, fingerprint, notification_id, request_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (token_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
           notification_id = excluded.notification_id, request_id = excluded.request_id,
           created_at = excluded.created_at`,
        send.token.id,
        send.idempotency.key,
        send.idempotency.fingerprint,
        send.id,
        send.requestId,
        now,
      );
    }
    const second = Math.floor(now / 1000);
    counts.window(tokenScope, second);
    counts.window(accountScope, second);
    counts.month(send.account.id, month);
    // Counted for the batch's one write of them (#writeCounts); now the copies this process
    // reads from (see #windows).
    for (const scope of [tokenScope, accountScope]) countInWindow(this.#windowOf(scope, now), now);
    this.#monthly.set(send.account.id, { month, count: outcome.monthlyCount });
    return outcome;
  }

  /**
   * The batch's sends counted into the rate windows and the monthly counts: one upsert per
   * second and scope, and per account and month, however many sends the batch holds.
   */
  #writeCounts(counts: BatchCounts): void {
    for (const { scope, second, count } of counts.windows.values()) {
      this.#run(
        `INSERT INTO send_windows (scope, second, count) VALUES (?, ?, ?)
         ON CONFLICT (scope, second) DO UPDATE SET count = count + excluded.count`,
        scope,
        second,
        count,
      );
    }
    for (const { accountId, month, count } of counts.months.values()) {
      this.#run(
        `INSERT INTO monthly_usage (account_id, month, count) VALUES (?, ?, ?)
         ON CONFLICT (account_id, month) DO UPDATE SET count = count + excluded.count`,
        accountId,
        month,
        count,
      );
    }
  }

  /** The sends per second of a scope in the minute before `now`, read from the table once. */
  #windowOf(scope: string, now: number): SecondCount[] {
    const since = windowStart(now);
    let window = this.#windows.get(scope);
    if (!window) {
      window = this.#all(
        'SELECT second, count FROM send_windows WHERE scope = ? AND second >= ? ORDER BY second',
        scope,
        since,
      ).map((row) => ({ second: Number(row.second), count: Number(row.count) }));
      this.#windows.set(scope, window);
    }
    while (window.length > 0 && (window[0] as SecondCount).second < since) window.shift();
    return window;
  }

  #monthlyCountOf(accountId: string, month: string): number {
    const cached = this.#monthly.get(accountId);
    if (cached?.month === month) return cached.count;
    const row = this.#get(
      'SELECT count FROM monthly_usage WHERE account_id = ? AND month = ?',
      accountId,
      month,
    );
    const count = Number(row?.count ?? 0);
    this.#monthly.set(accountId, { month, count });
    return count;
  }

  async monthlyCount(accountId: string, now: number) {
    return this.#monthlyCountOf(accountId, utcMonth(now));
  }

  #notificationOf(row: Row): StoredNotification {
    const id = row.id as string;
    return notificationOf(
      row,
      this.#all('SELECT * FROM destinations WHERE notification_id = ? ORDER BY rowid', id),
      this.#all('SELECT * FROM handled_events WHERE notification_id = ? ORDER BY rowid', id),
    );
  }

  async getNotification(id: string) {
    const row = this.#get('SELECT * FROM notifications WHERE id = ?', id);
    return row && this.#notificationOf(row);
  }

  async recordEvent(event: {
    accountId: string;
    notificationId: string;
    deviceId: string;
    action: HandledAction;
    now: number;
  }) {
    return this.#write((): 'recorded' | 'no_notification' | 'no_device' => {
      const notification = this.#get(
        'SELECT status FROM notifications WHERE id = ? AND account_id = ?',
        event.notificationId,
        event.accountId,
      );
      if (!notification) return 'no_notification';
      const device = this.#get(
        'SELECT platform FROM devices WHERE id = ? AND account_id = ?',
        event.deviceId,
        event.accountId,
      );
      if (!device) return 'no_device';
      this.#run(
        'INSERT INTO handled_events (notification_id, device_id, platform, action, at) VALUES (?, ?, ?, ?, ?)',
        event.notificationId,
        event.deviceId,
        device.platform,
        event.action,
        event.now,
      );
      const status = statusAfter(String(notification.status), event.action);
      if (status) this.#run('UPDATE notifications SET status = ? WHERE id = ?', status, event.notificationId);
      return 'recorded';
    });
  }

  async inbox(
    accountId: string,
    page: { after: { createdAt: number; id: string } | undefined; limit: number; since: number },
  ) {
    const rows = page.after
      ? this.#all(
          `SELECT * FROM notifications WHERE account_id = ? AND created_at >= ? AND (created_at, id) < (?, ?)
           ORDER BY created_at DESC, id DESC LIMIT ?`,
          accountId,
          page.since,
          page.after.createdAt,
          page.after.id,
          page.limit + 1,
        )
      : this.#all(
          `SELECT * FROM notifications WHERE account_id = ? AND created_at >= ?
           ORDER BY created_at DESC, id DESC LIMIT ?`,
          accountId,
          page.since,
          page.limit + 1,
        );
    const items = rows.slice(0, page.limit).map((row) => this.#notificationOf(row));
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
    const { now, limit, decide, lease } = options;
    return inTransaction(this.#db, () => {
      const claimed: ClaimedDestination[] = [];
      // Tagged destinations this call leased: not pushed until it returns, so a newer send of
      // their tag routed in the same call still supersedes them, as it would a pending one.
      const leasedTagged = new Map<string, ClaimedDestination>();
      const superseded = new Set<ClaimedDestination>();
      const room = () => (lease ? lease.limit - claimed.length + superseded.size : 0);
      const devicesOf = new Map<string, Device[]>();

      const place = (queued: QueuedNotification, device: Device, apnsId: string) => {
        const { tag } = queued;
        const { id, createdAt } = queued.input.notification;
        if (tag !== null) {
          // A send routed late must not replace a newer one of its tag; otherwise it replaces the
          // older ones still waiting on this device, whoever sent them.
          if (
            this.#get(
              'SELECT 1 FROM destinations WHERE device_id = ? AND tag = ? AND created_at > ? LIMIT 1',
              device.id,
              tag,
              createdAt,
            )
          ) {
            this.#insertDestination(queued, device, apnsId, 'superseded', undefined, now);
            return;
          }
          this.#run(
            `UPDATE destinations SET state = 'superseded', updated_at = ?
             WHERE device_id = ? AND tag = ? AND state = 'pending' AND notification_id != ?`,
            now,
            device.id,
            tag,
            id,
          );
          const older = leasedTagged.get(`${device.id} ${tag}`);
          if (older) {
            this.#run(
              `UPDATE destinations SET state = 'superseded', attempts = 0, lease_owner = NULL, lease_until = NULL,
                 updated_at = ? WHERE notification_id = ? AND device_id = ?`,
              now,
              older.notificationId,
              older.deviceId,
            );
            superseded.add(older);
          }
        }
        if (!lease || room() <= 0) {
          this.#insertDestination(queued, device, apnsId, 'pending', undefined, now);
          return;
        }
        this.#insertDestination(queued, device, apnsId, 'sending', lease, now);
        const destination = claimedAtRouting(queued, device, apnsId);
        claimed.push(destination);
        if (tag !== null) leasedTagged.set(`${device.id} ${tag}`, destination);
      };

      let routed = 0;
      // With a lease the queue is read a chunk at a time, so routing stops soon after the worker is full.
      const chunk = lease ? ROUTE_CHUNK : limit;
      while (routed < limit && (!lease || room() > 0)) {
        const wanted = Math.min(chunk, limit - routed);
        const queued = this.#all(
          `SELECT n.id, n.account_id, n.payload, n.sender_name, n.created_at, n.expires_at,
             t.revoked_at AS token_revoked_at, t.expires_at AS token_expires_at
           FROM notifications n INDEXED BY notifications_queued
           JOIN tokens t ON t.id = n.token_id
           WHERE n.routed_at IS NULL AND n.created_at <= ? ORDER BY n.created_at, n.id LIMIT ?`,
          now,
          wanted,
        );
        for (const row of queued) {
          if (lease && room() <= 0) break;
          const accountId = row.account_id as string;
          let devices = devicesOf.get(accountId);
          if (!devices) {
            devices = this.#activeDevices(accountId);
            devicesOf.set(accountId, devices);
          }
          const notification = routeInputOf(row, devices);
          const { id } = notification.input.notification;
          const decision = decide(notification.input);
          if (decision.kind === 'drop') {
            this.#run(
              `UPDATE notifications SET status = 'dropped', reason = ?, routed_at = ? WHERE id = ?`,
              decision.reason,
              now,
              id,
            );
          } else {
            for (const { device, apnsId } of decision.destinations) place(notification, device, apnsId);
            this.#run('UPDATE notifications SET routed_at = ? WHERE id = ?', now, id);
          }
          routed += 1;
        }
        if (queued.length < wanted) break;
      }
      return { routed, claimed: superseded.size === 0 ? claimed : claimed.filter((d) => !superseded.has(d)) };
    });
  }

  #insertDestination(
    queued: QueuedNotification,
    device: Device,
    apnsId: string,
    state: 'pending' | 'sending' | 'superseded',
    lease: { owner: string; leaseMs: number } | undefined,
    now: number,
  ): void {
    const { id, createdAt, expiresAt } = queued.input.notification;
    this.#run(
      `INSERT INTO destinations (notification_id, device_id, platform, state, attempts, next_attempt_at,
         updated_at, apns_id, tag, created_at, expires_at, lease_owner, lease_until)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      device.id,
      device.platform,
      state,
      lease ? 1 : 0,
      now,
      now,
      apnsId,
      queued.tag,
      createdAt,
      expiresAt,
      lease?.owner ?? null,
      lease ? now + lease.leaseMs : null,
    );
  }

  async claimDestinations(options: {
    owner: string;
    now: number;
    leaseMs: number;
    limit: number;
    maxAttempts: number;
  }) {
    const { owner, now, leaseMs, limit, maxAttempts } = options;
    return inTransaction(this.#db, (): ClaimedDestination[] => {
      const ended = new Set<string>();
      // A lease that ran out belongs to a worker that died mid-push: that attempt counted.
      for (const row of this.#all(
        `UPDATE destinations
         SET state = CASE WHEN attempts >= ? THEN 'failed_permanent' ELSE 'pending' END,
           lease_owner = NULL, lease_until = NULL, next_attempt_at = ?, updated_at = ?
         WHERE state = 'sending' AND lease_until <= ? RETURNING notification_id, state`,
        maxAttempts,
        now,
        now,
        now,
      )) {
        if (row.state === 'failed_permanent') ended.add(row.notification_id as string);
      }
      for (const row of this.#all(
        `UPDATE destinations SET state = 'expired', updated_at = ?
         WHERE state = 'pending' AND expires_at <= ? RETURNING notification_id`,
        now,
        now,
      )) {
        ended.add(row.notification_id as string);
      }
      for (const id of ended) this.#settle(id);

      const candidates = this.#all(
        `SELECT d.rowid AS rid, d.notification_id, d.device_id, d.platform, d.attempts, d.apns_id,
           d.created_at, d.expires_at, v.push_token, v.created_at AS device_created_at,
           ${REPLACED_BY_NEWER} AS replaced
         FROM destinations d
         JOIN devices v ON v.id = d.device_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= ?
         ORDER BY d.next_attempt_at, d.rowid LIMIT ?`,
        now,
        limit,
      );
      const replaced = candidates.filter((row) => row.replaced === 1);
      if (replaced.length > 0) {
        this.#run(
          `UPDATE destinations SET state = 'superseded', updated_at = ? WHERE rowid IN (SELECT value FROM json_each(?))`,
          now,
          JSON.stringify(replaced.map((row) => row.rid)),
        );
      }
      const due = replaced.length === 0 ? candidates : candidates.filter((row) => row.replaced !== 1);
      if (due.length === 0) return [];
      // Each notification's payload once, not once per device it goes to.
      const notifications = new Map<string, Row>();
      for (const row of this.#all(
        'SELECT id, payload, sender_name FROM notifications WHERE id IN (SELECT value FROM json_each(?))',
        JSON.stringify([...new Set(due.map((row) => row.notification_id as string))]),
      )) {
        notifications.set(row.id as string, row);
      }
      for (const row of due) {
        const notification = notifications.get(row.notification_id as string) as Row;
        row.payload = notification.payload;
        row.sender_name = notification.sender_name;
      }
      this.#run(
        `UPDATE destinations SET state = 'sending', attempts = attempts + 1, lease_owner = ?, lease_until = ?,
           updated_at = ? WHERE rowid IN (SELECT value FROM json_each(?))`,
        owner,
        now + leaseMs,
        now,
        JSON.stringify(due.map((row) => row.rid)),
      );
      return claimedFrom(due, (row) => Number(row.attempts) + 1);
    });
  }

  async finishAttempts(attempts: FinishedAttempt[], now: number) {
    inTransaction(this.#db, () => {
      // Only the lease holder may end an attempt; each update below checks it.
      const where = `WHERE notification_id = ? AND device_id = ? AND state = 'sending' AND lease_owner = ?`;
      const freed = 'lease_owner = NULL, lease_until = NULL';
      this.#finishAccepted(attempts, now);
      for (const { notificationId, deviceId, owner, end } of attempts) {
        const key = [notificationId, deviceId, owner];
        switch (end.kind) {
          case 'accepted':
            break;
          case 'retry':
            this.#run(
              `UPDATE destinations SET state = 'pending', push_status = ?, next_attempt_at = ?, ${freed},
                 updated_at = ? ${where}`,
              end.pushStatus,
              end.nextAttemptAt,
              now,
              ...key,
            );
            break;
          case 'failed_permanent':
            if (
              this.#run(
                `UPDATE destinations SET state = 'failed_permanent', push_status = ?, ${freed}, updated_at = ?
                 ${where}`,
                end.pushStatus,
                now,
                ...key,
              ) > 0
            ) {
              if (end.deactivateDevice) this.#deactivateDevice(deviceId, now);
              this.#settle(notificationId);
            }
            break;
          case 'released':
            this.#run(
              `UPDATE destinations SET state = 'pending', attempts = attempts - 1, next_attempt_at = ?,
                 ${freed}, updated_at = ? ${where}`,
              now,
              now,
              ...key,
            );
            break;
        }
      }
    });
  }

  /**
   * The accepted ends of a batch, nearly all of it, in two statements rather than two per push:
   * the destinations whose lease is still the finisher's, then their notifications.
   */
  #finishAccepted(attempts: FinishedAttempt[], now: number): void {
    const accepted = attempts.flatMap(({ notificationId, deviceId, owner, end }) =>
      end.kind === 'accepted' ? [[notificationId, deviceId, owner, end.pushStatus]] : [],
    );
    if (accepted.length === 0) return;
    const finished = this.#all(
      `UPDATE destinations SET state = 'accepted', push_status = a.value ->> 3,
         lease_owner = NULL, lease_until = NULL, updated_at = ?
       FROM json_each(?) AS a
       WHERE destinations.notification_id = a.value ->> 0 AND destinations.device_id = a.value ->> 1
         AND destinations.state = 'sending' AND destinations.lease_owner = a.value ->> 2
       RETURNING destinations.notification_id`,
      now,
      JSON.stringify(accepted),
    );
    this.#run(
      `UPDATE notifications SET status = 'sent_to_push'
       WHERE id IN (SELECT value FROM json_each(?)) AND status = 'accepted'`,
      JSON.stringify([...new Set(finished.map((row) => row.notification_id))]),
    );
  }

  /**
   * The device leaves lists and `auto` (removed, or APNs said its push token is gone), and what
   * still waits for it is skipped.
   */
  #deactivateDevice(deviceId: string, now: number): void {
    this.#run('UPDATE devices SET active = 0, removed_at = ? WHERE id = ? AND active = 1', now, deviceId);
    for (const row of this.#all(
      `UPDATE destinations INDEXED BY destinations_device_pending SET state = 'skipped', updated_at = ?
       WHERE device_id = ? AND state = 'pending'
       RETURNING notification_id`,
      now,
      deviceId,
    )) {
      this.#settle(row.notification_id as string);
    }
  }

  /**
   * A notification none of whose devices has it or may still get it, and whose deadline stopped
   * at least one of them, is dropped as `expired`: ttl ran out first.
   */
  #settle(notificationId: string): void {
    this.#run(
      `UPDATE notifications SET status = 'dropped', reason = 'expired'
       WHERE id = ? AND status = 'accepted'
         AND NOT EXISTS (SELECT 1 FROM destinations WHERE notification_id = ?
                         AND state IN ('pending', 'sending', 'accepted'))
         AND EXISTS (SELECT 1 FROM destinations WHERE notification_id = ? AND state = 'expired')`,
      notificationId,
      notificationId,
      notificationId,
    );
  }

  async nextDeliveryAt() {
    const row = this.#get(nextDeliveryAt(QUEUED_SINCE));
    return maybeNumber(row?.at) ?? undefined;
  }

  async getPause(): Promise<Pause> {
    // Read on every send; only the `api` store writes it, so it may keep it.
    if (!this.#pause) {
      const value = await this.getSetting('pause');
      this.#pause = value ? (JSON.parse(value) as Pause) : { paused: false, retryAfterSeconds: 0 };
    }
    return this.#pause;
  }

  async setPause(pause: Pause) {
    await this.setSetting('pause', JSON.stringify(pause));
    this.#pause = pause;
  }

  async getSetting(name: string) {
    return this.#get('SELECT value FROM settings WHERE name = ?', name)?.value as string | undefined;
  }

  async setSetting(name: string, value: string) {
    await this.#write(() =>
      this.#run(
        'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        name,
        value,
      ),
    );
  }

  async purge(cutoffs: {
    notificationsBefore: number;
    keysBefore: number;
    windowsBefore: number;
    credentialsBefore: number;
  }) {
    return this.#write(() => ({
      notifications: this.#run('DELETE FROM notifications WHERE created_at < ?', cutoffs.notificationsBefore),
      tokens: this.#run(
        'DELETE FROM tokens WHERE revoked_at < ? OR expires_at < ?',
        cutoffs.credentialsBefore,
        cutoffs.credentialsBefore,
      ),
      devices: this.#run(
        'DELETE FROM devices WHERE active = 0 AND removed_at < ?',
        cutoffs.credentialsBefore,
      ),
      keys: this.#run('DELETE FROM idempotency_keys WHERE created_at < ?', cutoffs.keysBefore),
      windows: this.#run(
        'DELETE FROM send_windows WHERE second < ?',
        Math.floor(cutoffs.windowsBefore / 1000),
      ),
    }));
  }

  async close() {
    // Sends handed over but not yet committed (waiting for an fsync to end) are committed first.
    while (this.#pending.length > 0 || this.#flushScheduled) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.#synced();
    this.#db.close();
    if (this.#wal !== undefined) closeSync(this.#wal);
    this.#apiLock?.close();
  }
}
