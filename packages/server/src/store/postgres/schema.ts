import * as shared from '../sql/migrations.js';

const POSTGRES: shared.ColumnWords = {
  time: 'BIGINT',
  int64: 'BIGINT',
  bool: 'BOOLEAN',
  active: 'active',
  inactive: 'NOT active',
  seq: 'seq',
  seqColumn: 'seq BIGINT GENERATED ALWAYS AS IDENTITY,\n    ',
  bySeq: ', seq',
};

/**
 * The PostgreSQL schema as a list of migrations, each at the number it shipped as: those both
 * databases run alike in PostgreSQL's words (sql/migrations.ts), and its own. SQLite's tables, but
 * for the routing queue.
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
  // The tables both databases made first, with the delivery columns SQLite's second migration
  // added; beside them, the indexes SQLite made later (delivery's in its second, notifications by
  // time in its tenth) and one of its own, on rate windows by second.
  `${shared.initialMigration(POSTGRES, {
    deliveryColumns: `
    apns_id TEXT NOT NULL,
    tag TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,`,
    queueTies: ', notification_id',
  })}CREATE INDEX notifications_time ON notifications(created_at);${shared.deliveryIndexes(POSTGRES)}
  CREATE INDEX send_windows_second ON send_windows(second);
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
  shared.handledOnceMigration(POSTGRES),
  ...shared.sharedMigrations(POSTGRES),
  // A destination's device is looked up only among pending ones (a device leaving skips them), so
  // that index keeps only those, as SQLite's does since its third migration: the index on
  // (device_id, state) held an entry for every destination stored and took a new one at each state
  // a push goes through, so it grew with every row and every push.
  `
  DROP INDEX destinations_device_state;
  CREATE INDEX destinations_device_pending ON destinations(device_id) WHERE state = 'pending';
  `,
  shared.renameMigration(
    // Processes of the release before serve on while the first process of this one migrates (a
    // rolling upgrade, docs/deploy.md), reading and writing the old names: they come back as
    // copies, kept by triggers both ways (a row a process of either release writes reads the same
    // in the other), until the next release drops them (and its migration may: by then every
    // process runs this release or a later one). An old process's query by the old address finds
    // no index, but devices are few and it runs only until it is replaced.
    `ALTER INDEX devices_active_push_token RENAME TO devices_active_push_address;
  ALTER TABLE devices ADD COLUMN push_token TEXT, ADD COLUMN web_push TEXT;
  ALTER TABLE link_requests ADD COLUMN push_token TEXT, ADD COLUMN web_push TEXT;
  ALTER TABLE destinations ADD COLUMN apns_id TEXT;
  UPDATE devices SET push_token = push_address, web_push = push_data;
  UPDATE link_requests SET push_token = push_address, web_push = push_data;
  UPDATE destinations SET apns_id = push_id WHERE state IN ('pending', 'sending');
  CREATE FUNCTION copy_old_push_columns() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_TABLE_NAME = 'destinations' THEN
      NEW.push_id := coalesce(NEW.push_id, NEW.apns_id);
      NEW.apns_id := NEW.push_id;
    ELSIF (TG_OP = 'INSERT' AND NEW.push_address IS NULL) OR (TG_OP = 'UPDATE'
        AND (NEW.push_token IS DISTINCT FROM OLD.push_token OR NEW.web_push IS DISTINCT FROM OLD.web_push)) THEN
      NEW.push_address := NEW.push_token;
      NEW.push_data := NEW.web_push;
    ELSE
      NEW.push_token := NEW.push_address;
      NEW.web_push := NEW.push_data;
    END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER devices_old_push_columns BEFORE INSERT OR UPDATE OF push_address, push_data, push_token, web_push
    ON devices FOR EACH ROW EXECUTE FUNCTION copy_old_push_columns();
  CREATE TRIGGER link_requests_old_push_columns BEFORE INSERT OR UPDATE OF push_address, push_data, push_token, web_push
    ON link_requests FOR EACH ROW EXECUTE FUNCTION copy_old_push_columns();
  CREATE TRIGGER destinations_old_push_id BEFORE INSERT ON destinations
    FOR EACH ROW EXECUTE FUNCTION copy_old_push_columns();
  `,
  ),
];
