import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { QUEUE_CHANNEL_SQL } from '../../../src/store/postgres/queue-signal.js';
import { send } from '../../helpers.js';
import { ADMIN, startOutsideSimulator, startProcess, tempDir } from '../../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

/**
 * A send's commit wakes the workers on a channel named for its schema. PostgreSQL's names are at
 * most 63 bytes, and so is a channel: `foxbell_queue_` and a long schema name were longer, and
 * every send was a 500 (pg_notify rejects a channel that long) while /readyz said ok.
 */

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A schema of this run whose name is `length` characters, the longest --database-schema takes being 63. */
const schemaOf = (length: number) => `${newTestSchema()}_`.padEnd(length, 'x');

async function client(schema: string): Promise<pg.Client> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
  await db.connect();
  closing.push(() => db.end());
  return db;
}

describe('the queue channel fits in a PostgreSQL name, whatever the schema', () => {
  it('is at most 63 bytes, one of its own per schema, and one that LISTEN and pg_notify both take', async () => {
    const channels = new Set<string>();
    for (const length of [40, 49, 50, 51, 63]) {
      const schema = schemaOf(length);
      expect(schema).toHaveLength(length);
      const db = await client(schema);
      await db.query(`CREATE SCHEMA ${schema}`);
      const [row] = (await db.query(`SELECT ${QUEUE_CHANNEL_SQL} AS channel`)).rows;
      const channel: string = row.channel;
      expect(Buffer.byteLength(channel), `${length}: ${channel}`).toBeLessThanOrEqual(63);
      channels.add(channel);
      const heard = new Promise((resolve) => db.once('notification', (message) => resolve(message.channel)));
      await db.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      await db.query(`SELECT pg_notify(${QUEUE_CHANNEL_SQL}, '')`);
      expect(await heard, `${length}`).toBe(channel);
    }
    expect(channels.size).toBe(5);
  });

  it('takes and delivers sends from processes on a schema of 63 characters, its workers woken by the channel', async () => {
    const schema = schemaOf(63);
    const dir = await tempDir();
    const { sim, apnsArgs } = await startOutsideSimulator(dir);
    closing.push(() => sim.close());
    const database = ['--database', TEST_DATABASE_URL, '--database-schema', schema, '--log-level', 'warn'];
    const api = await startProcess([...database, '--admin-key', ADMIN, '--no-workers']);
    const worker = await startProcess(
      ['worker', ...database, ...apnsArgs, '--queue-wake', 'notify'],
      {},
      /worker (wrk_\w+) delivering from postgres/,
    );
    closing.push(async () => worker.child.kill('SIGKILL'));
    const ready = await send(api.url, 'GET', '/readyz');
    expect(ready.status, ready.text).toBe(200);

    const account = await send(api.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const pushToken = 'ab'.repeat(32);
    const device = await send(api.url, 'POST', '/v1/devices', {
      token: account.body.key,
      json: { name: 'Phone', platform: 'ios', push_token: pushToken },
    });
    expect(device.status, device.text).toBe(201);
    const token = await send(api.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
    // What the workers hear: a client of ours on the same channel hears each send's commit.
    const db = await client(schema);
    const [row] = (await db.query(`SELECT ${QUEUE_CHANNEL_SQL} AS channel`)).rows;
    const heard = new Promise((resolve) => db.once('notification', (message) => resolve(message.channel)));
    await db.query(`LISTEN ${pg.escapeIdentifier(row.channel)}`);

    const sent = await send(api.url, 'POST', '/v1/notifications', {
      token: token.body.token,
      json: { message: 'Build passed' },
    });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.headers.get('x-request-id')).toBe(sent.body.request_id);
    expect(await heard).toBe(row.channel);
    const deadline = Date.now() + 20_000;
    let status = '';
    while (status !== 'sent_to_push' && Date.now() < deadline) {
      const read = await send(api.url, 'GET', `/v1/notifications/${sent.body.id}/status`, {
        token: account.body.key,
      });
      status = read.body.status;
      if (status !== 'sent_to_push') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('sent_to_push');
    expect(sim.received(pushToken)).toHaveLength(1);
  });
});
