import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../../helpers.js';
import { ADMIN, startProcess, tempDir } from '../../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

const run = promisify(execFile);
const databases: string[] = [];
afterEach(async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    for (const name of databases.splice(0))
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
});

describe('backing up PostgreSQL with pg_dump and pg_restore, as docs/deploy.md says', () => {
  it('copies a running deployment; a server on the restored database has every notification accepted before', async () => {
    const schema = newTestSchema();
    const database = ['--database', TEST_DATABASE_URL, '--database-schema', schema];
    const unlimited = ['--rate-per-token', '100000', '--rate-per-account', '100000'];
    const server = await startProcess([
      ...database,
      '--admin-key',
      ADMIN,
      '--log-level',
      'warn',
      ...unlimited,
    ]);
    const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    await send(server.url, 'POST', '/v1/devices', {
      token: account.body.key,
      json: { name: 'iPhone', platform: 'ios', push_token: 'b'.repeat(64) },
    });
    const token = (await send(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body
      .token;
    const accepted: string[] = [];
    let sending = true;
    const sender = (async () => {
      for (let i = 0; sending; i++) {
        const reply = await send(server.url, 'POST', '/v1/notifications', {
          token,
          json: { message: `m${i}` },
        });
        if (reply.status !== 202) throw new Error(`${reply.status} ${reply.text}`);
        accepted.push(reply.body.id);
      }
    })();
    await expect.poll(() => accepted.length, { timeout: 10_000 }).toBeGreaterThan(30);
    const before = [...accepted];
    const dump = path.join(await tempDir(), 'foxbell.dump');
    // The documented commands: a dump of the schema while the service runs (one consistent
    // snapshot), restored into a new, empty database.
    await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, TEST_DATABASE_URL]);
    sending = false;
    await sender;
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
      ...['--no-workers', ...unlimited],
    ]);
    for (const id of before) {
      const record = await send(copy.url, 'GET', `/v1/notifications/${id}/status`, { token });
      expect(record.status, `${id}: ${record.text}`).toBe(200);
    }
    const after = await send(copy.url, 'POST', '/v1/notifications', { token, json: { message: 'after' } });
    expect(after.status, after.text).toBe(202);
  }, 60_000);
});
