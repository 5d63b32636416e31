import { privatePostgres } from '@foxbell/test-support/private-postgres';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../../src/store/postgres/open.js';
import type { Store } from '../../../src/store/store.js';
import { accountWithDevices, newSend, T0 } from '../../store-fixtures.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** Counts the signals a store's watch hears, and waits for the next ones. */
function signals() {
  let count = 0;
  let waiting: { target: number; resolve: () => void }[] = [];
  return {
    hear: () => {
      count += 1;
      waiting = waiting.filter((wait) => {
        if (count < wait.target) return true;
        wait.resolve();
        return false;
      });
    },
    get count() {
      return count;
    },
    /** Resolves once `more` signals came after now. */
    next: (more = 1) =>
      new Promise<void>((resolve) => {
        waiting.push({ target: count + more, resolve });
      }),
  };
}

describe("a worker's wake-up on PostgreSQL (LISTEN/NOTIFY)", () => {
  it('hears a send another process accepts, again after the database restarts, and stops listening on close', async () => {
    const postgres = await privatePostgres();
    const open = async (): Promise<Store> => {
      const store = await openPostgresStore({ url: postgres.url, schema: 'foxbell', poolSize: 2 });
      closing.push(() => store.close());
      return store;
    };
    const worker = await open();
    const api = await open();
    // Another deployment in another schema of the same database wakes no one here.
    const neighbour = await openPostgresStore({ url: postgres.url, schema: 'other', poolSize: 1 });
    closing.push(() => neighbour.close());

    const heard = signals();
    const connected = heard.next();
    const watch = (await worker.watchQueue?.(heard.hear)) as { close(): Promise<void> };
    expect(watch).toBeDefined();
    // Once on listening, for whatever was sent before.
    await connected;

    const { account, token } = await accountWithDevices(api);
    const first = heard.next();
    expect((await api.acceptSend(newSend(account, token, T0))).kind).toBe('accepted');
    await first;
    const afterFirst = heard.count;

    const other = await accountWithDevices(neighbour);
    expect((await neighbour.acceptSend(newSend(other.account, other.token, T0))).kind).toBe('accepted');
    // The signal of one more send here arrives after any the neighbour's would have caused.
    const second = heard.next();
    await api.acceptSend(newSend(account, token, T0 + 1));
    await second;
    expect(heard.count).toBe(afterFirst + 1);

    // A restart ends the listening connection; it is made again, and says so once.
    const reconnected = heard.next();
    await postgres.stop('fast');
    await postgres.start();
    await reconnected;
    const third = heard.next();
    // The API's pool may still hold a connection the restart broke: its send is retried.
    for (;;) {
      try {
        await api.acceptSend(newSend(account, token, T0 + 2));
        break;
      } catch {}
    }
    await third;

    // Closed, it leaves no session listening behind (the server's own view of its sessions).
    const listening = async () => {
      const db = new pg.Client({ connectionString: postgres.url });
      await db.connect();
      try {
        const { rows } = await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`,
        );
        return rows[0].n as number;
      } finally {
        await db.end();
      }
    };
    expect(await listening()).toBe(1);
    await watch.close();
    expect(await listening()).toBe(0);
  }, 60_000);
});
