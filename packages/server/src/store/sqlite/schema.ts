import { renameMigration, sharedMigrations } from '../sql/migrations.js';

/**
 * The SQLite schema as a list of migrations: its own first ones, then those both databases share
 * (sql/migrations.ts), then its own tenth and the shared renaming, each at the number it shipped
 * as. Each runs once, in order, inside a transaction, and
 * `PRAGMA user_version` records how many have run. Append; never edit one that has shipped.
 * Times are epoch milliseconds.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT,
    key_hash TEXT NOT NULL UNIQUE,
    key_generation INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER
  );
  CREATE TABLE retired_account_keys (
    key_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    retired_at INTEGER NOT NULL
  );
  CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    secret_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    own_status INTEGER NOT NULL,
    device_names INTEGER NOT NULL,
    scenes TEXT,
    allow_urls INTEGER NOT NULL,
    default_target TEXT,
    expires_at INTEGER,
    revoked_at INTEGER,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX tokens_account ON tokens(account_id);
  CREATE TABLE devices (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    platform TEXT NOT NULL,
    push_token TEXT NOT NULL,
    in_auto INTEGER NOT NULL,
    active INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    removed_at INTEGER
  );
  CREATE UNIQUE INDEX devices_active_push_token ON devices(push_token) WHERE active = 1;
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
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    routed_at INTEGER
  );
  CREATE INDEX notifications_token_time ON notifications(token_id, created_at);
  CREATE INDEX notifications_account_time ON notifications(account_id, created_at, id);
  CREATE TABLE route_queue (
    notification_id TEXT PRIMARY KEY REFERENCES notifications(id) ON DELETE CASCADE,
    available_at INTEGER NOT NULL
  );
  CREATE INDEX route_queue_available ON route_queue(available_at);
  CREATE TABLE destinations (
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    state TEXT NOT NULL,
    push_status INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (notification_id, device_id)
  );
  CREATE INDEX destinations_device_state ON destinations(device_id, state);
  CREATE TABLE handled_events (
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    action TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX handled_events_notification ON handled_events(notification_id);
  CREATE TABLE idempotency_keys (
    token_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (token_id, key)
  );
  CREATE INDEX idempotency_keys_time ON idempotency_keys(created_at);
  CREATE TABLE send_windows (
    scope TEXT NOT NULL,
    second INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (scope, second)
  );
  CREATE TABLE monthly_usage (
    account_id TEXT NOT NULL,
    month TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (account_id, month)
  );
  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // Delivery: each destination keeps its apns-id, tag and deadline, and a worker's lease.
  `
  ALTER TABLE destinations ADD COLUMN apns_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE destinations ADD COLUMN tag TEXT;
  ALTER TABLE destinations ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE destinations ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE destinations ADD COLUMN lease_owner TEXT;
  ALTER TABLE destinations ADD COLUMN lease_until INTEGER;
  CREATE INDEX destinations_pending_due ON destinations(next_attempt_at) WHERE state = 'pending';
  CREATE INDEX destinations_pending_expiry ON destinations(expires_at) WHERE state = 'pending';
  CREATE INDEX destinations_leased ON destinations(lease_until) WHERE state = 'sending';
  CREATE INDEX destinations_device_tag ON destinations(device_id, tag) WHERE tag IS NOT NULL;
  `,
  // The routing queue becomes the notifications whose routed_at is NULL, found through a partial
  // index: a send writes one index entry where the queue took a row and two index entries. The
  // queue's available_at was always the send's created_at. What was off the queue unrouted (its
  // token revoked, its account deleted) gets a routed_at, which now means "left the queue". The
  // token index served only the revocation, which now reads the queue. A destination's device
  // is looked up only among pending ones (a device leaving skips them), so that index keeps only
  // those, instead of changing on every state a push goes through.
  `
  UPDATE notifications SET routed_at = created_at
    WHERE routed_at IS NULL AND id NOT IN (SELECT notification_id FROM route_queue);
  CREATE INDEX notifications_queued ON notifications(created_at, id) WHERE routed_at IS NULL;
  DROP TABLE route_queue;
  DROP INDEX notifications_token_time;
  DROP INDEX destinations_device_state;
  CREATE INDEX destinations_device_pending ON destinations(device_id) WHERE state = 'pending';
  `,
  // How many destinations have ended in each final state, kept by triggers in the writes' own
  // transactions, so that a metrics scrape reads five rows instead of grouping the whole table
  // (0.5 s of the event loop at a million rows). Those waiting or in flight (pending, sending)
  // are counted when scraped, through their partial indexes: that is the work not yet done, and
  // counting them here would run a trigger at every step of every push (it cost delivery 15% of
  // its pushes a second); a final state is reached once. SQLite has one writer at a time: one row
  // per state is enough, each made here, so a trigger is one update by primary key.
  `
  CREATE TABLE destination_state_counts (
    state TEXT PRIMARY KEY,
    n INTEGER NOT NULL
  );
  INSERT INTO destination_state_counts (state, n)
    VALUES ('accepted', 0), ('failed_permanent', 0), ('expired', 0), ('superseded', 0), ('skipped', 0);
  UPDATE destination_state_counts
    SET n = (SELECT count(*) FROM destinations d WHERE d.state = destination_state_counts.state);
  CREATE TRIGGER destinations_counted_insert AFTER INSERT ON destinations
    WHEN NEW.state NOT IN ('pending', 'sending') BEGIN
    UPDATE destination_state_counts SET n = n + 1 WHERE state = NEW.state;
  END;
  CREATE TRIGGER destinations_counted_update AFTER UPDATE OF state ON destinations
    WHEN OLD.state <> NEW.state
      AND (OLD.state NOT IN ('pending', 'sending') OR NEW.state NOT IN ('pending', 'sending')) BEGIN
    UPDATE destination_state_counts SET n = n + (state = NEW.state) - (state = OLD.state)
      WHERE state IN (OLD.state, NEW.state);
  END;
  CREATE TRIGGER destinations_counted_delete AFTER DELETE ON destinations
    WHEN OLD.state NOT IN ('pending', 'sending') BEGIN
    UPDATE destination_state_counts SET n = n - 1 WHERE state = OLD.state;
  END;
  `,
  // A notification's opened and cleared reports: one per device and action, kept at most for
  // every device it went to, however often an app (or a script) reports the same one.
  `
  DELETE FROM handled_events WHERE rowid NOT IN (
    SELECT min(rowid) FROM handled_events GROUP BY notification_id, device_id, action
  );
  DROP INDEX handled_events_notification;
  CREATE UNIQUE INDEX handled_events_once ON handled_events(notification_id, device_id, action);
  `,
  ...sharedMigrations({ time: 'INTEGER', bool: 'INTEGER', active: 'active = 1', inactive: 'active = 0' }),
  // Notifications by when they were made, so that retention finds those past it, the oldest first,
  // without reading the whole table (a purge of a day's worth read all 300,000 rows of a month).
  `
  CREATE INDEX notifications_time ON notifications(created_at);
  `,
  renameMigration(
    // SQLite runs one process serving sends on a data directory (api.lock), and an upgrade
    // restarts it (docs/deploy.md): no process of the release before reads the old names after
    // this. The address's index takes its column's name.
    `DROP INDEX devices_active_push_token;
  CREATE UNIQUE INDEX devices_active_push_address ON devices(push_address) WHERE active = 1;
  `,
  ),
];
