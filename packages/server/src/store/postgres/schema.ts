/**
 * The PostgreSQL schema as a list of migrations, the same tables as SQLite's. Each runs once, in
 * order, in a transaction, under an advisory lock so processes starting together run it once;
 * `foxbell_migrations` records which ran. Append; never edit one that has shipped. Times are
 * epoch milliseconds. `seq` keeps the order rows were made in (SQLite's rowid).
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT,
    key_hash TEXT NOT NULL UNIQUE,
    key_generation INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT
  );
  CREATE TABLE retired_account_keys (
    key_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    retired_at BIGINT NOT NULL
  );
  CREATE TABLE tokens (
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    secret_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    own_status BOOLEAN NOT NULL,
    device_names BOOLEAN NOT NULL,
    scenes TEXT,
    allow_urls BOOLEAN NOT NULL,
    default_target TEXT,
    expires_at BIGINT,
    revoked_at BIGINT,
    created_at BIGINT NOT NULL
  );
  CREATE INDEX tokens_account ON tokens(account_id);
  CREATE TABLE devices (
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL,
    platform TEXT NOT NULL,
    push_token TEXT NOT NULL,
    in_auto BOOLEAN NOT NULL,
    active BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    removed_at BIGINT
  );
  CREATE UNIQUE INDEX devices_active_push_token ON devices(push_token) WHERE active;
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
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    routed_at BIGINT
  );
  CREATE INDEX notifications_token_time ON notifications(token_id, created_at);
  CREATE INDEX notifications_account_time ON notifications(account_id, created_at, id);
  CREATE INDEX notifications_time ON notifications(created_at);
  CREATE TABLE route_queue (
    notification_id TEXT PRIMARY KEY REFERENCES notifications(id) ON DELETE CASCADE,
    available_at BIGINT NOT NULL
  );
  CREATE INDEX route_queue_available ON route_queue(available_at, notification_id);
  CREATE TABLE destinations (
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    state TEXT NOT NULL,
    push_status INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    updated_at BIGINT NOT NULL,
    apns_id TEXT NOT NULL,
    tag TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,
    PRIMARY KEY (notification_id, device_id)
  );
  CREATE INDEX destinations_device_state ON destinations(device_id, state);
  CREATE INDEX destinations_pending_due ON destinations(next_attempt_at, seq) WHERE state = 'pending';
  CREATE INDEX destinations_pending_expiry ON destinations(expires_at) WHERE state = 'pending';
  CREATE INDEX destinations_leased ON destinations(lease_until) WHERE state = 'sending';
  CREATE INDEX destinations_device_tag ON destinations(device_id, tag) WHERE tag IS NOT NULL;
  CREATE TABLE handled_events (
    seq BIGINT GENERATED ALWAYS AS IDENTITY,
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    action TEXT NOT NULL,
    at BIGINT NOT NULL
  );
  CREATE INDEX handled_events_notification ON handled_events(notification_id, seq);
  CREATE TABLE idempotency_keys (
    token_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (token_id, key)
  );
  CREATE INDEX idempotency_keys_time ON idempotency_keys(created_at);
  CREATE TABLE send_windows (
    scope TEXT NOT NULL,
    second BIGINT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (scope, second)
  );
  CREATE INDEX send_windows_second ON send_windows(second);
  CREATE TABLE monthly_usage (
    account_id TEXT NOT NULL,
    month TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (account_id, month)
  );
  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
];
