import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import autocannon from 'autocannon';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN, startProcess, tempDir } from '../processes.js';

const closing: (() => unknown)[] = [];
afterEach(() => {
  for (const close of closing.splice(0).reverse()) close();
});

/** Resident memory of a process, in MB (Linux). */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return Number(line?.[1]) / 1024;
}

describe('overload', () => {
  it('sheds what it cannot take with 503 and Retry-After, answers every request, recovers at once, delivers every 202', async () => {
    const data = path.join(await tempDir(), 'data');
    const server = await startProcess([
      ...['--data', data, '--admin-key', ADMIN, '--log-level', 'warn', '--sends-in-flight', '20'],
      ...['--rate-per-token', '1000000', '--rate-per-account', '1000000'],
    ]);
    const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const token = (await send(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} })).body
      .token;
    await send(server.url, 'POST', '/v1/devices', {
      token: account.body.key,
      json: { name: 'Phone', platform: 'ios', push_token: 'c'.repeat(64) },
    });
    const rssBefore = rssMb(server.child.pid as number);

    // Far more sends at once than it stores at once: 200 connections against 20 in flight.
    const statuses = new Map<number, number>();
    let retryAfterMissing = 0;
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url: `${server.url}/v1/notifications`,
          method: 'POST',
          connections: 200,
          duration: 3,
          timeout: 10,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'load' }),
          setupClient: (client) => {
            // autocannon passes what Node's HTTP parser saw (its types say otherwise): the status
            // and the raw headers, name, value, name, value…
            const onHeaders = ({ statusCode, headers }: { statusCode: number; headers: string[] }) => {
              const names = headers.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
              if (statusCode === 503 && !names.includes('retry-after')) retryAfterMissing += 1;
            };
            client.on('headers', onHeaders as unknown as (headers: object) => void);
          },
        },
        (error, done) => (error ? reject(error) : resolve(done)),
      );
      instance.on('response', (_client, statusCode) =>
        statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1),
      );
    });
    expect([result.errors, result.timeouts]).toEqual([0, 0]);
    expect([...statuses.keys()].sort()).toEqual([202, 503]);
    expect(statuses.get(503)).toBeGreaterThan(0);
    expect(retryAfterMissing).toBe(0);

    // Right after, sends are taken again: once the last of the run's sends in flight are stored
    // (autocannon stops counting before the server has responded to its tail), within a second.
    const started = Date.now();
    await expect
      .poll(
        async () =>
          (await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'after' } })).status,
        {
          timeout: 1_000,
          interval: 50,
        },
      )
      .toBe(202);
    expect(Date.now() - started).toBeLessThan(1_000);

    // Every 202 (autocannon's, and any it did not see as the run ended) is delivered.
    const db = new DatabaseSync(path.join(data, 'foxbell.db'), { readOnly: true });
    closing.push(() => db.close());
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    await expect
      .poll(
        () =>
          count(
            `SELECT (SELECT count(*) FROM notifications WHERE routed_at IS NULL) + (SELECT count(*) FROM destinations
               WHERE state IN ('pending', 'sending')) AS n`,
          ),
        { timeout: 60_000, interval: 200 },
      )
      .toBe(0);
    const stored = count('SELECT count(*) AS n FROM notifications');
    expect(stored).toBeGreaterThanOrEqual((statuses.get(202) ?? 0) + 1);
    expect(count(`SELECT count(*) AS n FROM notifications WHERE status = 'sent_to_push'`)).toBe(stored);
    // Its memory stays bounded: shedding costs no more than taking.
    expect(rssMb(server.child.pid as number) - rssBefore).toBeLessThan(200);
    console.info(
      `overload: ${statuses.get(202)} accepted, ${statuses.get(503)} shed with Retry-After, ` +
        `${stored} stored and delivered, RSS ${rssBefore.toFixed(0)} → ${rssMb(server.child.pid as number).toFixed(0)} MB`,
    );
  }, 90_000);
});
