import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { send } from '../../helpers.js';
import { ADMIN, keepSending, startProcess, tempDir, UNLIMITED } from '../../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

const run = promisify(execFile);

/**
 * The restored databases, dropped once the file's tests are done (their servers were killed after
 * each). DROP DATABASE waits for a checkpoint, which on a machine busy with other writes can take
 * longer than a test hook's limit: so it runs here, with a limit of its own.
 */
const databases: string[] = [];
afterAll(async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    for (const name of databases.splice(0))
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}, 180_000);

describe('backing up PostgreSQL with pg_dump and pg_restore, as docs/deploy.md says', () => {
  it('copies a running deployment; a server on the restored database has every notification accepted before', async () => {
    const schema = newTestSchema();
    const database = ['--database', TEST_DATABASE_URL, '--database-schema', schema];
    const server = await startProcess([
      ...database,
      '--admin-key',
      ADMIN,
      '--log-level',
      'warn',
      ...UNLIMITED,
    ]);
    const { token, accepted, stop } = await keepSending(server.url);
    await expect.poll(() => accepted.length, { timeout: 10_000 }).toBeGreaterThan(30);
    const before = [...accepted];
    const dump = path.join(await tempDir(), 'foxbell.dump');
    // The documented commands: a dump of the schema while the service runs (one consistent
    // snapshot), restored into a new, empty database.
    await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, TEST_DATABASE_URL]);
    await stop();
    const restored = `${schema}_restored`;
    databases.push(restored);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${restored}`;
    await run('createdb', [
      '--host',
      url.hostname,
      '--port',
      url.port || '5432',
      '--username',
      url.username,
      restored,
    ]);
    await run('pg_restore', ['--no-owner', `--dbname=${url.href}`, dump]);

    const copy = await startProcess([
      ...['--database', url.href, '--database-schema', schema, '--admin-key', ADMIN, '--log-level', 'warn'],
      ...['--no-workers', ...UNLIMITED],
    ]);
    for (const id of before) {
      const record = await send(copy.url, 'GET', `/v1/notifications/${id}/status`, { token });
      expect(record.status, `${id}: ${record.text}`).toBe(200);
    }
    const after = await send(copy.url, 'POST', '/v1/notifications', { token, json: { message: 'after' } });
    expect(after.status, after.text).toBe(202);
  }, 60_000);
});
