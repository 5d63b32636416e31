/**
 * The PostgreSQL schema as a list of migrations: SQLite's tables, but for the routing queue.
 * SQLite finds queued notifications by a partial index on `notifications.routed_at IS NULL`
 * (one writer, rows updated in place: the queue table cost an index entry per send). Here several
 * processes route at once, each claiming with `FOR UPDATE OF q SKIP LOCKED`: a narrow
 * `route_queue` row is locked and deleted, where the other model would update a wide
 * `notifications` row (a whole new row version under MVCC, and a partial index collecting dead
 * entries until vacuum) while other workers skip past it. Each runs once, in
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
  // How many destinations are in each state, kept by statement triggers in the writes' own
  // transactions, so that a metrics scrape sums a few rows instead of grouping the whole table.
  // Each database connection counts in a slot of its own (its backend pid): processes delivering
  // at once never wait on each other's counter rows. The purge folds the slots of connections
  // that have gone into slot 0. (Per statement, not per row: a batch of a thousand pushes moves
  // the counters once; UPDATE triggers cannot name columns when they read transition tables, so
  // lease renewals run it too and find nothing to count.)
  `
  CREATE TABLE destination_state_counts (
    slot INTEGER NOT NULL,
    state TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (slot, state)
  );
  INSERT INTO destination_state_counts (slot, state, n)
    SELECT 0, state, count(*) FROM destinations GROUP BY state;
  CREATE FUNCTION count_destination_states() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO destination_state_counts (slot, state, n)
        SELECT pg_backend_pid(), state, count(*) FROM new_rows GROUP BY state ORDER BY state
        ON CONFLICT (slot, state) DO UPDATE SET n = destination_state_counts.n + excluded.n;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO destination_state_counts (slot, state, n)
        SELECT pg_backend_pid(), state, -count(*) FROM old_rows GROUP BY state ORDER BY state
        ON CONFLICT (slot, state) DO UPDATE SET n = destination_state_counts.n + excluded.n;
    ELSE
      INSERT INTO destination_state_counts (slot, state, n)
        SELECT pg_backend_pid(), state, sum(delta) FROM (
          SELECT state, 1 AS delta FROM new_rows UNION ALL SELECT state, -1 FROM old_rows
        ) AS moved GROUP BY state HAVING sum(delta) <> 0 ORDER BY state
        ON CONFLICT (slot, state) DO UPDATE SET n = destination_state_counts.n + excluded.n;
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER destinations_counted_insert AFTER INSERT ON destinations
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION count_destination_states();
  CREATE TRIGGER destinations_counted_update AFTER UPDATE ON destinations
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION count_destination_states();
  CREATE TRIGGER destinations_counted_delete AFTER DELETE ON destinations
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION count_destination_states();
  `,
  // A notification's opened and cleared reports: one per device and action, kept at most for
  // every device it went to, however often an app (or a script) reports the same one.
  `
  DELETE FROM handled_events WHERE seq NOT IN (
    SELECT min(seq) FROM handled_events GROUP BY notification_id, device_id, action
  );
  CREATE UNIQUE INDEX handled_events_once ON handled_events(notification_id, device_id, action);
  `,
  // A device reached by Web Push: its subscription's keys (and the address its web app was
  // served from) beside the endpoint, which takes the push token's place and its uniqueness.
  // Accounts merged into another keep their row (their key answers account_merged). Devices that
  // link themselves: the app's own id for itself, the hash of its device key and when
  // the key was revoked (its device removed: a push address gone stale revokes nothing, so the app
  // can register a new one), and since when its push address is the one it has. Link requests, and
  // the wrong codes each account gave, for its lock.
  `
  ALTER TABLE accounts ADD COLUMN merged_into TEXT;
  ALTER TABLE devices ADD COLUMN web_push TEXT;
  ALTER TABLE devices ADD COLUMN client_id TEXT;
  ALTER TABLE devices ADD COLUMN key_hash TEXT;
  ALTER TABLE devices ADD COLUMN key_revoked_at BIGINT;
  ALTER TABLE devices ADD COLUMN push_since BIGINT;
  CREATE UNIQUE INDEX devices_key ON devices(key_hash) WHERE key_hash IS NOT NULL;
  CREATE INDEX devices_active_client ON devices(client_id) WHERE active AND client_id IS NOT NULL;
  CREATE TABLE link_requests (
    id TEXT PRIMARY KEY,
    code_hash TEXT NOT NULL UNIQUE,
    secret_hash TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL,
    sealed_key TEXT,
    client_id TEXT NOT NULL,
    name TEXT NOT NULL,
    platform TEXT NOT NULL,
    in_auto BOOLEAN NOT NULL,
    push_token TEXT NOT NULL,
    web_push TEXT,
    source_device_id TEXT,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    approved_account_id TEXT,
    approved_device_id TEXT,
    approved_at BIGINT
  );
  CREATE INDEX link_requests_pending_client ON link_requests(client_id) WHERE state = 'pending';
  CREATE INDEX link_requests_pending_push ON link_requests(push_token) WHERE state = 'pending';
  CREATE INDEX link_requests_approvals ON link_requests(approved_account_id, approved_at)
    WHERE approved_account_id IS NOT NULL;
  CREATE INDEX link_requests_expiry ON link_requests(expires_at);
  CREATE TABLE link_wrong_codes (
    account_id TEXT NOT NULL,
    at BIGINT NOT NULL
  );
  CREATE INDEX link_wrong_codes_account ON link_wrong_codes(account_id, at);
  `,
  // When each device's key was last used (at most once a minute), so that a person can see a
  // device that stopped opening Foxbell, and a Web Push device gone quiet is called stale.
  `
  ALTER TABLE devices ADD COLUMN last_seen_at BIGINT;
  `,
  // Each device's push provider by name, so that a provider is a room of its own and the store
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
    WHERE NOT active AND key_revoked_at IS NULL
      AND account_id IN (SELECT id FROM accounts WHERE deleted_at IS NULL);
  `,
  // A destination's device is looked up only among pending ones (a device leaving skips them), so
  // that index keeps only those, as SQLite's does since its third migration: the index on
  // (device_id, state) held an entry for every destination stored and took a new one at each state
  // a push goes through, so it grew with every row and every push.
  `
  DROP INDEX destinations_device_state;
  CREATE INDEX destinations_device_pending ON destinations(device_id) WHERE state = 'pending';
  `,
];
