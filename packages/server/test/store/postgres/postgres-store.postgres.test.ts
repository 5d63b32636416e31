import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DatabaseUnreachableError,
  migratePostgres,
  openPostgresStore,
} from '../../../src/store/postgres/open.js';
import { POSTGRES_MIGRATIONS } from '../../../src/store/postgres/schema.js';
import { NewerDatabaseError } from '../../../src/store/schema-version.js';
import type { Store } from '../../../src/store/store.js';
import { runToExit, tempDir } from '../../processes.js';
import {
  expectReasonsFilledIn,
  expectReleaseFixture,
  type ReleaseFixture,
  rowsBeforeReasons,
  T0,
} from '../../store-fixtures.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

describe('the PostgreSQL store', () => {
  it('opens a schema written by release 0.1.0 and migrates it: its account, token, device and notification are all there, and it takes new sends', async () => {
    // Written by `foxbell-server` 0.1.0 on PostgreSQL (pg_dump of its schema): an account, an
    // iPhone, a token named CI, and one notification sent with an idempotency key and delivered
    // to the simulator. Loaded into a schema of this test's with psql, as pg_restore would.
    const schema = newTestSchema();
    const dump = await readFile(
      new URL('../../fixtures/foxbell-0.1.0.postgres.sql', import.meta.url),
      'utf8',
    );
    const file = path.join(await tempDir(), 'fixture.sql');
    await writeFile(file, dump.replaceAll('foxbell_release_010', schema));
    await promisify(execFile)('psql', [
      '--quiet',
      '--set=ON_ERROR_STOP=1',
      `--file=${file}`,
      TEST_DATABASE_URL,
    ]);

    const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema });
    opened.push(store);
    await expectReleaseFixture(store, RELEASE_010);
  });

  it('keeps the renamed push columns and their old names in step both ways, for processes of the release before', async () => {
    const schema = newTestSchema();
    const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema });
    opened.push(store);
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    try {
      await store.createAccount({ id: 'acct_1', name: null, keyHash: 'h', now: T0 });
      const data = { p256dh: 'BPk', auth: 'au', appUrl: null };
      const address = { provider: 'web-push', key: 'https://web.push.apple.com/QAB', data };
      await store.createDevice(
        { id: 'dev_new', accountId: 'acct_1', name: 'New', platform: 'ios', address, inAuto: true, now: T0 },
        10,
      );
      const oldColumns = async (id: string) =>
        (await pool.query('SELECT push_token, web_push FROM devices WHERE id = $1', [id])).rows[0];
      // What this release writes, the release before reads by its names.
      expect(await oldColumns('dev_new')).toEqual({
        push_token: address.key,
        web_push: JSON.stringify(data),
      });
      // What the release before writes by its names (its INSERT and its PATCH /v1/device), this one reads.
      await pool.query(
        `INSERT INTO devices (id, account_id, name, platform, provider, push_token, web_push, in_auto, active, created_at)
         VALUES ('dev_old', 'acct_1', 'Old', 'ios', 'apns', $1, NULL, true, true, ${T0})`,
        ['ab'.repeat(32)],
      );
      await pool.query(
        "UPDATE devices SET push_token = 'cd', web_push = NULL, provider = 'apns' WHERE id = 'dev_new'",
      );
      const devices = await store.listDevices('acct_1', { activeOnly: true });
      expect(devices.map((device) => [device.id, device.address])).toEqual([
        ['dev_new', { provider: 'apns', key: 'cd', data: null }],
        ['dev_old', { provider: 'apns', key: 'ab'.repeat(32), data: null }],
      ]);
      expect(await oldColumns('dev_new')).toEqual({ push_token: 'cd', web_push: null });
      // A destination's push id, routed by either release and claimed by the other.
      await pool.query(
        `INSERT INTO notifications (id, account_id, token_id, request_id, sender_name, payload, status, created_at,
           expires_at) VALUES ('ntf_1', 'acct_1', 'tok_1', 'req_1', 'CI', '{}', 'accepted', ${T0}, ${T0 + 1})`,
      );
      await pool.query(
        `INSERT INTO destinations (notification_id, device_id, platform, state, updated_at, created_at, expires_at, push_id)
         VALUES ('ntf_1', 'dev_new', 'ios', 'pending', ${T0}, ${T0}, ${T0 + 1}, 'new-id')`,
      );
      await pool.query(
        `INSERT INTO destinations (notification_id, device_id, platform, state, updated_at, created_at, expires_at, apns_id)
         VALUES ('ntf_1', 'dev_old', 'ios', 'pending', ${T0}, ${T0}, ${T0 + 1}, 'old-id')`,
      );
      expect(
        (await pool.query('SELECT device_id, push_id, apns_id FROM destinations ORDER BY device_id')).rows,
      ).toEqual([
        { device_id: 'dev_new', push_id: 'new-id', apns_id: 'new-id' },
        { device_id: 'dev_old', push_id: 'old-id', apns_id: 'old-id' },
      ]);
    } finally {
      await pool.end();
    }
  });

  it('says why of the devices and destinations already inactive or ended, where their rows tell', async () => {
    const schema = newTestSchema();
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    try {
      // As the release before the reasons (PostgreSQL's migration 7) left it.
      await migratePostgres(pool, schema, POSTGRES_MIGRATIONS.slice(0, 6));
      await pool.query(rowsBeforeReasons((value) => String(value)));
    } finally {
      await pool.end();
    }
    const store = await openPostgresStore({ url: TEST_DATABASE_URL, schema });
    opened.push(store);
    await expectReasonsFilledIn(store);
  });

  it('runs a migration again when PostgreSQL ends it in a deadlock with a process still serving, as in a rolling upgrade', async () => {
    const schema = newTestSchema();
    opened.push(await openPostgresStore({ url: TEST_DATABASE_URL, schema }));
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    const session = async () => {
      const client = new pg.Client({
        connectionString: TEST_DATABASE_URL,
        options: `-c search_path=${schema}`,
      });
      await client.connect();
      return client;
    };
    // A process of the release before, in a transaction that holds `later` and then wants `first`;
    // and a gate that holds the migration between its two locks.
    const [serving, gate] = [await session(), await session()];
    // Advisory locks are the database's, not the schema's: a key of this run's own (below 2^31,
    // so that pg_locks shows it whole as `objid`).
    const gateKey = randomInt(1, 2 ** 31);
    const waiting = (condition: string) =>
      until(async () => {
        const { rows } = await pool.query(
          `SELECT count(*)::int AS n FROM pg_locks l
           WHERE NOT l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND ${condition}`,
        );
        return rows[0].n === 1;
      });
    try {
      await pool.query('CREATE TABLE first (a int); CREATE TABLE later (a int)');
      const released = POSTGRES_MIGRATIONS.length;
      await gate.query('SELECT pg_advisory_lock($1)', [gateKey]);
      // PostgreSQL ends the transaction whose deadlock check, run a `deadlock_timeout` after it
      // began to wait, finds the cycle. The serving one never checks, and the migration begins its
      // wait for `later` only once the serving one waits for `first`: so PostgreSQL ends the
      // migration, however long a loaded machine takes between the steps.
      await serving.query("BEGIN; SET LOCAL deadlock_timeout = '1h'; LOCK TABLE later");
      const migrating = migratePostgres(pool, schema, [
        ...POSTGRES_MIGRATIONS,
        `LOCK TABLE first; SELECT pg_advisory_xact_lock(${gateKey}); LOCK TABLE later; CREATE TABLE migrated (a int)`,
      ]);
      await waiting(`l.locktype = 'advisory' AND l.classid = 0 AND l.objid = ${gateKey}`);
      const served = serving.query('LOCK TABLE first').then(() => serving.query('COMMIT'));
      await waiting(`l.relation = to_regclass('${schema}.first')`);
      await gate.query('SELECT pg_advisory_unlock($1)', [gateKey]);
      await Promise.all([migrating, served]);
      const { rows } = await pool.query(
        'SELECT max(version)::int AS version, to_regclass($1) AS migrated FROM foxbell_migrations',
        [`${schema}.migrated`],
      );
      expect(rows[0]).toEqual({ version: released + 1, migrated: 'migrated' });
    } finally {
      await Promise.all([serving.end(), gate.end(), pool.end()]);
    }
  });

  it('leaves the database at the version before a migration that fails, and rejects one of a newer release untouched', async () => {
    const schema = newTestSchema();
    opened.push(await openPostgresStore({ url: TEST_DATABASE_URL, schema }));
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    const versions = async () =>
      (await client.query(`SELECT version FROM ${schema}.foxbell_migrations ORDER BY version`)).rows.map(
        (row) => row.version,
      );
    try {
      const released = POSTGRES_MIGRATIONS.length;
      // The next release's migration breaks half-way: its first statement is undone too.
      await expect(
        migratePostgres(pool, schema, [
          ...POSTGRES_MIGRATIONS,
          'CREATE TABLE added (a int); INSERT INTO missing VALUES (1)',
        ]),
      ).rejects.toThrow(/missing/);
      expect((await versions()).at(-1)).toBe(released);
      const added = await client.query('SELECT to_regclass($1) AS found', [`${schema}.added`]);
      expect(added.rows[0].found).toBeNull();

      // A newer release ran one more: this one refuses to open it, and changes nothing.
      await client.query(
        `INSERT INTO ${schema}.foxbell_migrations (version, applied_at) VALUES ($1, now())`,
        [released + 1],
      );
      const newer = await openPostgresStore({ url: TEST_DATABASE_URL, schema }).catch((error) => error);
      expect(newer).toBeInstanceOf(NewerDatabaseError);
      expect(newer.message).toBe(
        `the database is at schema version ${released + 1}, written by a newer foxbell-server (this one knows up to ${released}); run that release or a later one: this one leaves the database as it is`,
      );
      expect((await versions()).at(-1)).toBe(released + 1);

      // The server says so in one line, and exits 1.
      const run = await runToExit([
        '--database',
        TEST_DATABASE_URL,
        '--database-schema',
        schema,
        '--no-workers',
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`foxbell-server: ${newer.message}\n`);
    } finally {
      await client.end();
      await pool.end();
    }
  });

  it('migrates a new schema once when several processes start on it at the same moment', async () => {
    const schema = newTestSchema();
    opened.push(
      ...(await Promise.all(
        Array.from({ length: 4 }, () => openPostgresStore({ url: TEST_DATABASE_URL, schema, poolSize: 2 })),
      )),
    );
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT version FROM ${schema}.foxbell_migrations ORDER BY version`,
      );
      expect(rows).toEqual(POSTGRES_MIGRATIONS.map((_sql, i) => ({ version: i + 1 })));
      const tables = await client.query(
        'SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1',
        [schema],
      );
      // Every table of the schema: the link requests and wrong link codes made it 16.
      expect(tables.rows[0].n).toBe(16);
    } finally {
      await client.end();
    }
    // Opened again, it finds nothing to do.
    opened.push(await openPostgresStore({ url: TEST_DATABASE_URL, schema }));
  });

  it('keeps its schema when the URL has ?options= of its own', async () => {
    const schema = newTestSchema();
    const options = encodeURIComponent('-c lock_timeout=4321');
    const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${options}`;
    const store = await openPostgresStore({ url, schema });
    opened.push(store);
    await store.setSetting('placed', 'here');
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      // The URL's options used to replace the search_path: the tables were made in `public`.
      const { rows } = await client.query(`SELECT value FROM ${schema}.settings WHERE name = 'placed'`);
      expect(rows).toEqual([{ value: 'here' }]);
    } finally {
      await client.end();
    }
  });

  it('finds the destinations waiting for a device through an index of the pending ones alone', async () => {
    const schema = newTestSchema();
    opened.push(await openPostgresStore({ url: TEST_DATABASE_URL, schema }));
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'destinations' AND indexdef LIKE '%(device_id%' ORDER BY indexname",
        [schema],
      );
      // Not (device_id, state), which held an entry for every destination stored.
      expect(rows.map((row) => row.indexname)).toEqual([
        'destinations_device_pending',
        'destinations_device_tag',
      ]);
      expect(rows[0].indexdef).toMatch(/\(device_id\) WHERE \(state = 'pending'::text\)$/);
    } finally {
      await client.end();
    }
  });

  it('says where it could not connect, without the password', async () => {
    const attempt = openPostgresStore({ url: 'postgres://fox:s3cret@127.0.0.1:1/foxbell', schema: 'x' });
    await expect(attempt).rejects.toBeInstanceOf(DatabaseUnreachableError);
    await expect(attempt).rejects.toThrow(/^cannot reach PostgreSQL at 127\.0\.0\.1:1\/foxbell: /);
    await expect(attempt).rejects.not.toThrow(/s3cret/);
  });

  it('rejects a schema name that would need quoting', async () => {
    await expect(openPostgresStore({ url: TEST_DATABASE_URL, schema: 'Public; DROP' })).rejects.toThrow(
      'the database schema must be lowercase letters, digits and _, not "Public; DROP"',
    );
  });
});

describe('foxbell-server --database', () => {
  it('exits 1 with where it could not connect when the database does not respond, naming no password', async () => {
    const { code, stderr } = await runToExit([
      '--port',
      '0',
      '--database',
      'postgres://fox:s3cret@127.0.0.1:1/db',
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^foxbell-server: cannot reach PostgreSQL at 127\.0\.0\.1:1\/db: /);
    expect(stderr).not.toContain('s3cret');
  });

  it('rejects a URL that is not postgres://, and a schema without a database, without echoing the URL', async () => {
    const { code, stderr } = await runToExit([
      '--database',
      'mysql://fox:s3cret@host/db',
      '--database-schema',
      'Bad',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('--database (FOXBELL_DATABASE_URL) must be a postgres:// or postgresql:// URL');
    expect(stderr).toContain(
      '--database-schema (FOXBELL_DATABASE_SCHEMA) must be lowercase letters, digits and _, not "Bad"',
    );
    expect(stderr).not.toContain('s3cret');
    const alone = await runToExit(['--database-schema', 'fox']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--database-schema (FOXBELL_DATABASE_SCHEMA) needs --database');
  });
});

/** The secrets behind the 0.1.0 fixture's hashes (a test database's, never a real one's). */
const RELEASE_010: ReleaseFixture = {
  accountKey: 'fox_acct_wdMHsuCs8DclZAfALbTzXn6k5SljokP4',
  token: 'fox_send_OIPPEXuhRzTJiAEvAydwAsTBobPBvtbm',
  id: 'ntf_0VcBpV456aIAEwdr0cT9WI',
};

/** Polls `done` every 20 ms until it holds (the test's timeout bounds it). */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}
