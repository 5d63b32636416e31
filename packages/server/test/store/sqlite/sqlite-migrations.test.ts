import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DESTINATION_STATES } from '@foxbell/sdk/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { NewerDatabaseError } from '../../../src/store/schema-version.js';
import { migrateSqlite, openSqliteStore } from '../../../src/store/sqlite/open.js';
import { SQLITE_MIGRATIONS } from '../../../src/store/sqlite/schema.js';
import type { Store } from '../../../src/store/store.js';
import { tempDir } from '../../processes.js';
import {
  expectReasonsFilledIn,
  expectReleaseFixture,
  type ReleaseFixture,
  rowsBeforeReasons,
  STORED_NOTIFICATION,
  T0,
} from '../../store-fixtures.js';

const open: Store[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

const PAYLOAD = JSON.stringify(STORED_NOTIFICATION);

describe('SQLite migrations', () => {
  it('leave the database at the version before a migration that fails, and reject one of a newer release untouched', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'foxbell.db');
    const released = SQLITE_MIGRATIONS.length;
    const db = databaseAt(file, released);
    const tables = () =>
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    const before = tables();
    // The next release's migration breaks half-way: its first statement is undone too.
    expect(() =>
      migrateSqlite(db, [...SQLITE_MIGRATIONS, 'CREATE TABLE added (a); INSERT INTO missing VALUES (1)']),
    ).toThrow(/missing/);
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: released });
    expect(tables()).toEqual(before);

    // A newer release ran one more: this one refuses to open it, twice (its lock was let go).
    db.exec(`PRAGMA user_version = ${released + 1}`);
    db.close();
    for (let i = 0; i < 2; i++) {
      const newer = (() => {
        try {
          open.push(openSqliteStore({ dataDir: dir }));
        } catch (error) {
          return error as Error;
        }
        return undefined;
      })();
      expect(newer).toBeInstanceOf(NewerDatabaseError);
      expect(newer?.message).toBe(
        `the database is at schema version ${released + 1}, written by a newer foxbell-server (this one knows up to ${released}); run that release or a later one: this one leaves the database as it is`,
      );
    }
    const after = new DatabaseSync(file);
    expect(after.prepare('PRAGMA user_version').get()).toEqual({ user_version: released + 1 });
    after.close();
  });

  it('turns the routing queue into the unrouted notifications: queued ones stay queued, nothing else is routed again', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'foxbell.db');
    // A database as the release before this migration (the third) left it.
    const before = databaseAt(file, 2);
    before.exec(`
      INSERT INTO accounts (id, name, key_hash, key_generation, created_at) VALUES ('acct_1', NULL, 'h', 1, ${T0});
      INSERT INTO tokens (id, account_id, secret_hash, name, kind, own_status, device_names, allow_urls, created_at)
        VALUES ('tok_1', 'acct_1', 's', 'CI', 'standard', 1, 0, 1, ${T0});
    `);
    const insert = before.prepare(
      `INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status, reason,
         created_at, expires_at, routed_at)
       VALUES (?, 'acct_1', 'tok_1', 'req_1', 'CI', ?, ?, ?, ?, ?, ?)`,
    );
    insert.run('ntf_queued', PAYLOAD, 'accepted', null, T0 + 2, T0 + 3_600_000, null);
    insert.run('ntf_routed', PAYLOAD, 'sent_to_push', null, T0, T0 + 3_600_000, T0 + 5);
    // Revoked before it was routed: taken off the queue, never routed.
    insert.run('ntf_revoked', PAYLOAD, 'dropped', 'token_revoked', T0 + 1, T0 + 3_600_000, null);
    before
      .prepare('INSERT INTO route_queue (notification_id, available_at) VALUES (?, ?)')
      .run('ntf_queued', T0 + 2);
    before.close();

    const store = openSqliteStore({ dataDir: dir });
    open.push(store);
    expect(await store.nextDeliveryAt()).toBe(T0 + 2);
    const routed: string[] = [];
    const outcome = await store.routeQueued({
      now: T0 + 10,
      limit: 100,
      decide: (input) => {
        routed.push(input.notification.id);
        return { kind: 'drop', reason: 'no_matching_device' };
      },
    });
    expect(outcome).toEqual({ routed: 1, claimed: [] });
    expect(routed).toEqual(['ntf_queued']);
    expect(await store.nextDeliveryAt()).toBeUndefined();
    expect((await store.getNotification('ntf_revoked'))?.status).toBe('dropped');

    const after = new DatabaseSync(file, { readOnly: true });
    try {
      expect(
        after
          .prepare("SELECT name FROM sqlite_master WHERE name IN ('route_queue', 'notifications_token_time')")
          .all(),
      ).toEqual([]);
      expect(after.prepare('SELECT id, routed_at FROM notifications ORDER BY id').all()).toEqual([
        { id: 'ntf_queued', routed_at: T0 + 10 },
        { id: 'ntf_revoked', routed_at: T0 + 1 },
        { id: 'ntf_routed', routed_at: T0 + 5 },
      ]);
    } finally {
      after.close();
    }
  });

  it('reads each device an older release wrote before the provider column as it meant it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'foxbell.db');
    const keys = JSON.stringify({ p256dh: 'BPk', auth: 'au', appUrl: null });
    const before = databaseAt(file, 7);
    before.exec(
      `INSERT INTO accounts (id, name, key_hash, key_generation, created_at) VALUES ('acct_1', NULL, 'h', 1, ${T0})`,
    );
    // What every release before migration 8 writes: no provider; web_push set for a Web Push device.
    const olderInsert = (db: DatabaseSync, id: string, pushToken: string, webPush: string | null) =>
      db
        .prepare(
          `INSERT INTO devices (id, account_id, name, platform, push_token, web_push, in_auto, active, created_at)
           VALUES (?, 'acct_1', ?, 'ios', ?, ?, 1, 1, ${T0})`,
        )
        .run(id, id, pushToken, webPush);
    olderInsert(before, 'dev_phone', 'ab'.repeat(32), null);
    olderInsert(before, 'dev_web', 'https://web.push.apple.com/QAB', keys);
    before.close();

    // No older process writes devices beside the migrated database: only the one `api` process
    // does (api.lock), and an upgrade restarts it (PostgreSQL's rolling upgrade: postgres-store test).
    const store = openSqliteStore({ dataDir: dir });
    open.push(store);
    const devices = await store.listDevices('acct_1', { activeOnly: true });
    expect(devices.map((device) => [device.id, device.address])).toEqual([
      ['dev_phone', { provider: 'apns', key: 'ab'.repeat(32), data: null }],
      ['dev_web', { provider: 'web-push', key: 'https://web.push.apple.com/QAB', data: JSON.parse(keys) }],
    ]);
  });

  it('says why of the devices and destinations already inactive or ended, where their rows tell', async () => {
    const dir = await tempDir();
    // As the release before the reasons (SQLite's migration 9) left it.
    const before = databaseAt(path.join(dir, 'foxbell.db'), 8);
    before.exec(rowsBeforeReasons((value) => (value ? '1' : '0')));
    before.close();
    const store = openSqliteStore({ dataDir: dir });
    open.push(store);
    await expectReasonsFilledIn(store);
  });

  it('counts the destinations already there by state, and keeps one opened or cleared report per device', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'foxbell.db');
    // As the release before these two migrations left it: reports repeated, no counts kept.
    const before = databaseAt(file, 3);
    before.exec(`
      INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status, created_at,
                                 expires_at, routed_at)
        VALUES ('ntf_1', 'acct_1', 'tok_1', 'req_1', 'CI', '${PAYLOAD}', 'opened', ${T0}, ${T0 + 3_600_000}, ${T0});
      INSERT INTO destinations (notification_id, device_id, platform, state, updated_at)
        VALUES ('ntf_1', 'dev_1', 'ios', 'accepted', ${T0}), ('ntf_1', 'dev_2', 'watchos', 'accepted', ${T0}),
               ('ntf_1', 'dev_3', 'visionos', 'failed_permanent', ${T0});
      INSERT INTO handled_events (notification_id, device_id, platform, action, at)
        VALUES ('ntf_1', 'dev_1', 'ios', 'opened', ${T0 + 1}), ('ntf_1', 'dev_1', 'ios', 'opened', ${T0 + 2}),
               ('ntf_1', 'dev_1', 'ios', 'cleared', ${T0 + 3}), ('ntf_1', 'dev_1', 'ios', 'opened', ${T0 + 4});
    `);
    before.close();

    const store = openSqliteStore({ dataDir: dir });
    open.push(store);
    expect(await store.destinationCounts()).toEqual({ accepted: 2, failed_permanent: 1 });
    // A row for every final state the interface has (a state without one would never be counted);
    // pending and sending are counted when read.
    const counts = new DatabaseSync(file, { readOnly: true });
    try {
      const states = counts.prepare('SELECT state FROM destination_state_counts ORDER BY state').all();
      expect(states.map((row) => row.state)).toEqual(
        DESTINATION_STATES.filter((state) => state !== 'pending' && state !== 'sending').sort(),
      );
      const plan = counts
        .prepare("EXPLAIN QUERY PLAN SELECT count(*) FROM destinations WHERE state = 'pending'")
        .all()
        .map((row) => row.detail);
      expect(plan.join(' ')).toMatch(/USING COVERING INDEX destinations_(pending|device_pending)/);
    } finally {
      counts.close();
    }
    expect((await store.getNotification('ntf_1'))?.handled).toEqual([
      { deviceId: 'dev_1', platform: 'ios', action: 'opened', at: T0 + 1 },
      { deviceId: 'dev_1', platform: 'ios', action: 'cleared', at: T0 + 3 },
    ]);
  });

  it('opens a database written by release 0.1.0 (better-sqlite3): its accounts, tokens, devices and notifications are all there', async () => {
    // Written by `foxbell-server` 0.1.0 on 2026-11-24: an account, an iPhone, a token named CI, and
    // one notification sent with an idempotency key and delivered to the simulator.
    const dir = await tempDir();
    await copyFile(new URL('../../fixtures/foxbell-0.1.0.db', import.meta.url), path.join(dir, 'foxbell.db'));
    const store = openSqliteStore({ dataDir: dir });
    open.push(store);
    await expectReleaseFixture(store, FIXTURE);
  });

  it('finds the notifications past retention by their time index, the oldest first, not by reading the table', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'foxbell.db');
    // As the release before the index (the tenth migration) left it; the index comes with the store.
    databaseAt(file, 9).close();
    open.push(openSqliteStore({ dataDir: dir }));
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const plan = db
        .prepare(
          'EXPLAIN QUERY PLAN SELECT rowid FROM notifications WHERE created_at < ? ORDER BY created_at LIMIT ?',
        )
        .all(0, 500)
        .map((row) => (row as { detail: string }).detail);
      expect(plan).toEqual(['SEARCH notifications USING COVERING INDEX notifications_time (created_at<?)']);
    } finally {
      db.close();
    }
  });
});

/** A database file with the first `applied` migrations run, as the release that had only those left it. */
function databaseAt(file: string, applied: number): DatabaseSync {
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  for (const sql of SQLITE_MIGRATIONS.slice(0, applied)) db.exec(sql);
  db.exec(`PRAGMA user_version = ${applied}`);
  return db;
}

/** The secrets behind the fixture's hashes (a test database's, never a real one's). */
const FIXTURE: ReleaseFixture = {
  accountKey: 'fox_acct_U0l4qvC7dnYItht5qb4mcmy61719k7nN',
  token: 'fox_send_bJdHlf6kqqEKPq3GzCB4Wi6AKW682NUs',
  id: 'ntf_0Vbvxh8Ex6P6XGI3ktsDMS',
};
