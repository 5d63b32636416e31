import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { send } from '../../helpers.js';
import { ADMIN, startProcess, tempDir } from '../../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

/**
 * A merge while sends of the merged account's token arrive at two API processes on one PostgreSQL:
 * each send is stored before the merge (and moved by it) or after it (under the account its token
 * moved to), never left behind in the merged account.
 */
describe('a merge racing sends, two processes on PostgreSQL', () => {
  it('leaves every accepted send in the surviving account', async () => {
    const schema = newTestSchema();
    const args = [
      ...['--database', TEST_DATABASE_URL, '--database-schema', schema, '--log-level', 'warn'],
      ...['--admin-key', ADMIN, '--no-workers', '--rate-per-token', '100000', '--rate-per-account', '100000'],
      ...['--data', await tempDir()],
    ];
    const first = await startProcess(args);
    const second = await startProcess([...args.slice(0, -1), await tempDir()]);
    const ana = await send(first.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const old = await send(first.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const token = (await send(first.url, 'POST', '/v1/tokens', { token: old.body.key, json: {} })).body.token;

    const sendMany = (url: string, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          send(url, 'POST', '/v1/notifications', { token, json: { message: `race ${i}` } }),
        ),
      );
    const early = [sendMany(first.url, 60), sendMany(second.url, 60)];
    const merged = send(second.url, 'POST', '/v1/account/merge', {
      token: ana.body.key,
      json: { account_key: old.body.key },
    });
    const late = [sendMany(first.url, 60), sendMany(second.url, 60)];
    const answers = (await Promise.all([...early, ...late])).flat();
    expect((await merged).status).toBe(200);
    expect(answers.map((reply) => reply.status).filter((status) => status !== 202)).toEqual([]);

    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const rows = await client.query(
        `SELECT account_id, count(*)::int AS n FROM ${schema}.notifications GROUP BY 1`,
      );
      expect(rows.rows).toEqual([{ account_id: ana.body.id, n: answers.length }]);
    } finally {
      await client.end();
    }
  }, 60_000);
});
