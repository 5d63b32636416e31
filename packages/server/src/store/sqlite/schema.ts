import * as shared from '../sql/migrations.js';

const SQLITE: shared.ColumnWords = {
  time: 'INTEGER',
  int64: 'INTEGER',
  bool: 'INTEGER',
  active: 'active = 1',
  inactive: 'active = 0',
  seq: 'rowid',
  seqColumn: '',
  bySeq: '',
};

/**
 * The SQLite schema as a list of migrations, each at the number it shipped as: those both
 * databases run alike in SQLite's words (sql/migrations.ts), and its own. Each runs once, in order,
 * inside a transaction, and `PRAGMA user_version` records how many have run. Append; never edit
 * one that has shipped. Times are epoch milliseconds.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  shared.initialMigration(SQLITE),
  // Delivery: each destination keeps its apns-id, tag and deadline, and a worker's lease.
  `
  ALTER TABLE destinations ADD COLUMN apns_id TEXT NOT NULL DEFAULT '';
  ALTER TABLE destinations ADD COLUMN tag TEXT;
  ALTER TABLE destinations ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE destinations ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE destinations ADD COLUMN lease_owner TEXT;
  ALTER TABLE destinations ADD COLUMN lease_until INTEGER;${shared.deliveryIndexes(SQLITE)}
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
  shared.handledOnceMigration(SQLITE, '\n  DROP INDEX handled_events_notification;'),
  ...shared.sharedMigrations(SQLITE),
  // Notifications by when they were made, so that retention finds those past it, the oldest first,
  // without reading the whole table (a purge of a day's worth read all 300,000 rows of a month).
  `
  CREATE INDEX notifications_time ON notifications(created_at);
  `,
  shared.renameMigration(
    // SQLite runs one process serving sends on a data directory (api.lock), and an upgrade
    // restarts it (docs/deploy.md): no process of the release before reads the old names after
    // this. The address's index takes its column's name.
    `DROP INDEX devices_active_push_token;
  CREATE UNIQUE INDEX devices_active_push_address ON devices(push_address) WHERE active = 1;
  `,
  ),
];
