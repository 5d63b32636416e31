import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { createAccount, expectError, startServer } from '../helpers.js';

/** The store with its acceptSend replaced by `accept`, which gets the store's own to call. */
function withAcceptSend(
  store: Store,
  accept: (
    send: Parameters<Store['acceptSend']>[0],
    original: Store['acceptSend'],
  ) => ReturnType<Store['acceptSend']>,
): Store {
  const original = store.acceptSend.bind(store);
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'acceptSend') return (send: Parameters<Store['acceptSend']>[0]) => accept(send, original);
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A store whose acceptSend fails with `fault` while it is set, as a full disk or a lost database would. */
function faultyStore() {
  let fault: Error | undefined;
  const wrap = (store: Store) =>
    withAcceptSend(store, (send, original) => (fault ? Promise.reject(fault) : original(send)));
  return { wrap, fail: (error: Error | undefined) => (fault = error) };
}

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

/** The error node:sqlite really throws when the disk is full, or the database is locked. */
function sqliteError(kind: 'full' | 'busy'): Error {
  const dir = mkdtempSync(path.join(tmpdir(), 'foxbell-fault-'));
  const file = path.join(dir, 'fault.db');
  const first = new DatabaseSync(file);
  const second = new DatabaseSync(file, { timeout: 0 });
  try {
    first.exec('CREATE TABLE t (x BLOB)');
    if (kind === 'full') {
      first.exec('PRAGMA max_page_count = 4');
      first.exec('INSERT INTO t VALUES (zeroblob(1000000))');
    } else {
      first.exec('BEGIN EXCLUSIVE');
      second.exec('BEGIN EXCLUSIVE');
    }
  } catch (error) {
    return error as Error;
  } finally {
    first.close();
    second.close();
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`node:sqlite did not fail (${kind})`);
}

describe('storage faults', () => {
  it.each([
    ['SQLite: disk full', sqliteError('full')],
    ['SQLite: locked past the busy timeout', sqliteError('busy')],
    ['PostgreSQL: shut down by the administrator', withCode('terminating connection', '57P01')],
    ['PostgreSQL: too many connections', withCode('sorry, too many clients already', '53300')],
    ['PostgreSQL: unreachable', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['node-postgres: no connection in time', new Error('timeout exceeded when trying to connect')],
  ])(
    '%s: 503 service_unavailable with Retry-After, never a 202, and sends work again after',
    async (_, error) => {
      const faulty = faultyStore();
      const server = await startServer({ wrapStore: faulty.wrap });
      const account = await createAccount(server);
      faulty.fail(error);
      const refused = await server.request('POST', '/v1/notifications', {
        token: account.token,
        json: { message: 'lost?' },
      });
      expectError(refused, 503, 'service_unavailable');
      expect(refused.headers.get('retry-after')).toBe('5');
      const viaUrl = await server.request('GET', `/v1/send/${account.token}?message=lost%3F`);
      expectError(viaUrl, 503, 'service_unavailable');

      faulty.fail(undefined);
      const accepted = await server.request('POST', '/v1/notifications', {
        token: account.token,
        json: { message: 'kept' },
      });
      expect(accepted.status).toBe(202);
      const inbox = await server.request('GET', '/v1/inbox', { token: account.key });
      expect(inbox.body.items.map((item: { message: string }) => item.message)).toEqual(['kept']);
    },
  );

  it('any other fault: 500 internal_error, with nothing of it in the body, logged without the token', async () => {
    let log = '';
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log += chunk;
        done();
      },
    });
    const faulty = faultyStore();
    const server = await startServer({ wrapStore: faulty.wrap, logger: { level: 'info', stream } });
    const account = await createAccount(server);
    faulty.fail(new Error('a bug of ours'));
    const refused = await server.request('GET', `/v1/send/${account.token}?message=hi`);
    expectError(refused, 500, 'internal_error');
    expect(refused.text).not.toContain('a bug of ours');
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(log).toContain('a bug of ours');
    expect(log).toContain('"path":"/v1/send/<redacted>"');
    expect(log).not.toContain('message=hi');
    for (const secret of [account.token, account.key, account.token.slice('fox_send_'.length)]) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('overload', () => {
  it('sheds sends past the in-flight limit with 503 and Retry-After: 1, and takes them again at once', async () => {
    // A store that holds every send until released: the sends pile up as under overload.
    const held: (() => void)[] = [];
    const slow = (store: Store) =>
      withAcceptSend(store, (send, original) =>
        new Promise<void>((resolve) => held.push(resolve)).then(() => original(send)),
      );
    const server = await startServer({
      wrapStore: slow,
      limits: { perTokenPerMinute: 1000, perAccountPerMinute: 1000, sendsInFlight: 5 },
    });
    const account = await createAccount(server);
    const answered: Awaited<ReturnType<typeof server.request>>[] = [];
    const sends = Array.from({ length: 8 }, (_, i) =>
      server
        .request('POST', '/v1/notifications', { token: account.token, json: { message: `n${i}` } })
        .then((reply) => {
          answered.push(reply);
          return reply;
        }),
    );
    // Whichever three come last get their response at once, while five wait in the store.
    await expect.poll(() => [held.length, answered.length]).toEqual([5, 3]);
    for (const reply of answered) {
      expectError(reply, 503, 'service_unavailable');
      expect(reply.headers.get('retry-after')).toBe('1');
    }
    for (const release of held.splice(0)) release();
    const statuses = (await Promise.all(sends)).map((reply) => reply.status).sort();
    expect(statuses).toEqual([202, 202, 202, 202, 202, 503, 503, 503]);
    // Room again: the next one is stored.
    const next = server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'again' },
    });
    await expect.poll(() => held.length).toBe(1);
    held.splice(0)[0]?.();
    expect((await next).status).toBe(202);
  });
});
