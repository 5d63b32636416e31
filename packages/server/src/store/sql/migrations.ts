/**
 * The migrations both databases run alike, written once: their column types and boolean tests as
 * each database words them (`t`). Each database's schema (sqlite/schema.ts, postgres/schema.ts)
 * lists them among its own, which differ in more than words, at the numbers they shipped as.
 * Append; never edit one that has shipped. SQLite keeps each table's text as it was written
 * (`sqlite_master`): a word carries its own line break, so that its text stays the one it shipped.
 */
export interface ColumnWords {
  /** Epoch milliseconds. */
  time: 'INTEGER' | 'BIGINT';
  /** Any other whole number that may pass 2^31 (SQLite's INTEGER holds 64 bits). */
  int64: 'INTEGER' | 'BIGINT';
  bool: 'INTEGER' | 'BOOLEAN';
  /** A device that is active, and one that is not, as the partial indexes say it. */
  active: 'active = 1' | 'active';
  inactive: 'active = 0' | 'NOT active';
  /**
   * The order rows were made in, for the tables read in it: SQLite's rowid keeps it and ends every
   * index's key; PostgreSQL keeps it in a column of its own (`seqColumn`, first in the table) and
   * names it last in an index that must keep it among equal keys (`bySeq`).
   */
  seq: 'rowid' | 'seq';
  seqColumn: '' | 'seq BIGINT GENERATED ALWAYS AS IDENTITY,\n    ';
  bySeq: '' | ', seq';
}

/**
 * The first migration: the tables both databases made first. PostgreSQL's shipped after SQLite's
 * second, and differs from SQLite's beyond its words in `own` (empty for SQLite): its destinations
 * were made with the delivery columns SQLite's second migration added, and its routing queue's
 * index orders equal times by notification (SQLite's, by rowid). The indexes it made beside them
 * are its own (postgres/schema.ts).
 */
export const initialMigration = (
  t: ColumnWords,
  own: { deliveryColumns: string; queueTies: string } = { deliveryColumns: '', queueTies: '' },
): string => `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT,
    key_hash TEXT NOT NULL UNIQUE,
    key_generation INTEGER NOT NULL,
    created_at ${t.time} NOT NULL,
    deleted_at ${t.time}
  );
  CREATE TABLE retired_account_keys (
    key_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    retired_at ${t.time} NOT NULL
  );
  CREATE TABLE tokens (
    ${t.seqColumn}id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    secret_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    own_status ${t.bool} NOT NULL,
    device_names ${t.bool} NOT NULL,
    scenes TEXT,
    allow_urls ${t.bool} NOT NULL,
    default_target TEXT,
    expires_at ${t.time},
    revoked_at ${t.time},
    created_at ${t.time} NOT NULL
  );
  CREATE INDEX tokens_account ON tokens(account_id);
  CREATE TABLE devices (
    ${t.seqColumn}id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    platform TEXT NOT NULL,
    push_token TEXT NOT NULL,
    in_auto ${t.bool} NOT NULL,
    active ${t.bool} NOT NULL,
    created_at ${t.time} NOT NULL,
    removed_at ${t.time}
  );
  CREATE UNIQUE INDEX devices_active_push_token ON devices(push_token) WHERE ${t.active};
  CREATE INDEX devices_account ON devices(account_id);
  CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    token_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    sender_name TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    created_at ${t.time} NOT NULL,
    expires_at ${t.time} NOT NULL,
    routed_at ${t.time}
  );
  CREATE INDEX notifications_token_time ON notifications(token_id, created_at);
  CREATE INDEX notifications_account_time ON notifications(account_id, created_at, id);
  CREATE TABLE route_queue (
    notification_id TEXT PRIMARY KEY REFERENCES notifications(id) ON DELETE CASCADE,
    available_at ${t.time} NOT NULL
  );
  CREATE INDEX route_queue_available ON route_queue(available_at${own.queueTies});
  CREATE TABLE destinations (
    ${t.seqColumn}notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    state TEXT NOT NULL,
    push_status INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at ${t.time},
    updated_at ${t.time} NOT NULL,${own.deliveryColumns}
    PRIMARY KEY (notification_id, device_id)
  );
  CREATE INDEX destinations_device_state ON destinations(device_id, state);
  CREATE TABLE handled_events (
    ${t.seqColumn}notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    action TEXT NOT NULL,
    at ${t.time} NOT NULL
  );
  CREATE INDEX handled_events_notification ON handled_events(notification_id${t.bySeq});
  CREATE TABLE idempotency_keys (
    token_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    created_at ${t.time} NOT NULL,
    PRIMARY KEY (token_id, key)
  );
  CREATE INDEX idempotency_keys_time ON idempotency_keys(created_at);
  CREATE TABLE send_windows (
    scope TEXT NOT NULL,
    second ${t.int64} NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (scope, second)
  );
  CREATE TABLE monthly_usage (
    account_id TEXT NOT NULL,
    month TEXT NOT NULL,
    count ${t.int64} NOT NULL,
    PRIMARY KEY (account_id, month)
  );
  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `;

/** Delivery's indexes on destinations: those due, expiring and leased, and a device's by tag. */
export const deliveryIndexes = (t: ColumnWords): string => `
  CREATE INDEX destinations_pending_due ON destinations(next_attempt_at${t.bySeq}) WHERE state = 'pending';
  CREATE INDEX destinations_pending_expiry ON destinations(expires_at) WHERE state = 'pending';
  CREATE INDEX destinations_leased ON destinations(lease_until) WHERE state = 'sending';
  CREATE INDEX destinations_device_tag ON destinations(device_id, tag) WHERE tag IS NOT NULL;`;

/**
 * A notification's opened and cleared reports: one per device and action, kept at most for every
 * device it went to, however often an app (or a script) reports the same one. The first of each
 * stays. SQLite's also drops the index by notification (`dropped`), which the new one serves (it
 * starts with notification_id); PostgreSQL's keeps its own.
 */
export const handledOnceMigration = (t: ColumnWords, dropped = ''): string => `
  DELETE FROM handled_events WHERE ${t.seq} NOT IN (
    SELECT min(${t.seq}) FROM handled_events GROUP BY notification_id, device_id, action
  );${dropped}
  CREATE UNIQUE INDEX handled_events_once ON handled_events(notification_id, device_id, action);
  `;

export const sharedMigrations = (t: ColumnWords): string[] => [
  // A device reached by Web Push: its subscription's keys (and the address its web app was
  // served from) beside the endpoint, which takes the push token's place and its uniqueness.
  // Accounts merged into another keep their row (their key gets account_merged). Devices that
  // link themselves: the app's own id for itself, the hash of its device key and when
  // the key was revoked (its device removed: a push address gone stale revokes nothing, so the app
  // can register a new one), and since when its push address is the one it has. Link requests, and
  // the wrong codes each account gave, for its lock.
  `
  ALTER TABLE accounts ADD COLUMN merged_into TEXT;
  ALTER TABLE devices ADD COLUMN web_push TEXT;
  ALTER TABLE devices ADD COLUMN client_id TEXT;
  ALTER TABLE devices ADD COLUMN key_hash TEXT;
  ALTER TABLE devices ADD COLUMN key_revoked_at ${t.time};
  ALTER TABLE devices ADD COLUMN push_since ${t.time};
  CREATE UNIQUE INDEX devices_key ON devices(key_hash) WHERE key_hash IS NOT NULL;
  CREATE INDEX devices_active_client ON devices(client_id) WHERE ${t.active} AND client_id IS NOT NULL;
  CREATE TABLE link_requests (
    id TEXT PRIMARY KEY,
    code_hash TEXT NOT NULL UNIQUE,
    secret_hash TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL,
    sealed_key TEXT,
    client_id TEXT NOT NULL,
    name TEXT NOT NULL,
    platform TEXT NOT NULL,
    in_auto ${t.bool} NOT NULL,
    push_token TEXT NOT NULL,
    web_push TEXT,
    source_device_id TEXT,
    state TEXT NOT NULL,
    created_at ${t.time} NOT NULL,
    expires_at ${t.time} NOT NULL,
    approved_account_id TEXT,
    approved_device_id TEXT,
    approved_at ${t.time}
  );
  CREATE INDEX link_requests_pending_client ON link_requests(client_id) WHERE state = 'pending';
  CREATE INDEX link_requests_pending_push ON link_requests(push_token) WHERE state = 'pending';
  CREATE INDEX link_requests_approvals ON link_requests(approved_account_id, approved_at)
    WHERE approved_account_id IS NOT NULL;
  CREATE INDEX link_requests_expiry ON link_requests(expires_at);
  CREATE TABLE link_wrong_codes (
    account_id TEXT NOT NULL,
    at ${t.time} NOT NULL
  );
  CREATE INDEX link_wrong_codes_account ON link_wrong_codes(account_id, at);
  `,
  // When each device's key was last used (at most once a minute), so that a person can see a
  // device that stopped opening Foxbell, and a Web Push device gone quiet is called stale.
  `
  ALTER TABLE devices ADD COLUMN last_seen_at ${t.time};
  `,
  // Each device's push provider by name, so that a provider is a module of its own and the store
  // knows none: `push_token` is the address's key and `web_push` its data, for any provider.
  // Added, not renamed: an older process reads the columns it knows while a newer one runs. NULL
  // in a row an older release wrote, before this or beside it in a rolling upgrade (a default would
  // call its Web Push devices APNs ones): read as that release meant it (rows.ts, PROVIDER_SQL).
  `
  ALTER TABLE devices ADD COLUMN provider TEXT;
  ALTER TABLE link_requests ADD COLUMN provider TEXT;
  `,
  // Why a push will not arrive, and why a device is not active, in the interface's words: a
  // destination's reason (failed_permanent, expired), a device's inactive_reason. Added, NULL
  // where a release before this one ended them, also beside it in a rolling upgrade. What the rows
  // tell is filled in: an expired destination is `expired`; a failed one's last status says
  // `gone` (410), `refused` (another 4xx, but 404, which is gone for Web Push and BadPath for
  // APNs) or `attempts_exhausted` (429, 5xx: only ever retried); with no status it cannot tell. A
  // device inactive with its key not revoked, of an account not deleted, was made so by its push
  // service; one whose key was revoked was removed or moved, which the rows cannot tell apart.
  `
  ALTER TABLE destinations ADD COLUMN reason TEXT;
  ALTER TABLE devices ADD COLUMN inactive_reason TEXT;
  UPDATE destinations SET reason = 'expired' WHERE state = 'expired';
  UPDATE destinations SET reason = CASE
      WHEN push_status = 410 THEN 'gone'
      WHEN push_status = 429 OR push_status >= 500 THEN 'attempts_exhausted'
      WHEN push_status >= 400 AND push_status <> 404 THEN 'refused'
    END
    WHERE state = 'failed_permanent';
  UPDATE devices SET inactive_reason = CASE
      WHEN COALESCE(provider, CASE WHEN web_push IS NULL THEN 'apns' ELSE 'web-push' END) = 'apns'
        THEN 'unregistered'
      ELSE 'subscription_gone'
    END
    WHERE ${t.inactive} AND key_revoked_at IS NULL
      AND account_id IN (SELECT id FROM accounts WHERE deleted_at IS NULL);
  `,
];

/**
 * Names that say what the columns hold, for every provider: a device's (and a link request's)
 * push address and its provider's data, and a destination's push id. What else each database
 * does with them is `renamed` (sqlite/schema.ts, postgres/schema.ts). It comes after each
 * database's own migrations of the release before (PostgreSQL's eighth, SQLite's tenth).
 */
export const renameMigration = (renamed: string): string =>
  `
  ALTER TABLE devices RENAME COLUMN push_token TO push_address;
  ALTER TABLE devices RENAME COLUMN web_push TO push_data;
  ALTER TABLE link_requests RENAME COLUMN push_token TO push_address;
  ALTER TABLE link_requests RENAME COLUMN web_push TO push_data;
  ALTER TABLE destinations RENAME COLUMN apns_id TO push_id;
  ${renamed}`;

/**
 * What a row written by a release before the `provider` column means: those releases knew two
 * providers, and told them apart by the provider data (then `web_push`). The stores name no
 * provider but here, for those rows; every row written since says its own. In SQL, of the device
 * (or request) row `v`, and of a row read.
 */
const LEGACY_APNS = 'apns';
const LEGACY_WEB_PUSH = 'web-push';
export const PROVIDER_SQL = (v: string) =>
  `COALESCE(${v}.provider, CASE WHEN ${v}.push_data IS NULL THEN '${LEGACY_APNS}' ELSE '${LEGACY_WEB_PUSH}' END)`;
export const legacyProvider = (data: unknown) => (data == null ? LEGACY_APNS : LEGACY_WEB_PUSH);

/**
 * The advisory lock every registration of a push address takes (PostgreSQL): two accounts
 * registering one phone at once cannot both succeed. Named as the releases before the column's
 * rename named it, so that processes of both exclude each other during a rolling upgrade.
 */
export const addressLock = (key: string) => `push_token:${key}`;
