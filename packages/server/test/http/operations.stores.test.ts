import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/metrics/metrics.js';
import type { Store } from '../../src/store/store.js';
import { ADMIN_KEY, createAccount, startServer } from '../helpers.js';
import { PROVIDER_IDS } from '../providers.js';

/** A metric's samples as `name{labels} value` lines, without the HELP and TYPE lines. */
async function samples(metrics: Metrics | undefined, name: string): Promise<string[]> {
  const text = (await metrics?.registry.metrics()) ?? '';
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('health and readiness', () => {
  it('answers /healthz and /readyz without a credential, with no secret or count', async () => {
    const server = await startServer({
      health: { stopping: () => false, push: () => ({ apns: 'ok', 'web-push': 'ok' }) },
    });
    const health = await server.request('GET', '/healthz');
    expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
    expect(health.headers.get('x-request-id')).toMatch(/^req_/);
    const ready = await server.request('GET', '/readyz');
    expect([ready.status, ready.body]).toEqual([
      200,
      {
        status: 'ok',
        checks: { database: 'ok', writes: 'ok', shutdown: 'ok' },
        sends: 'open',
        push: { apns: 'ok', 'web-push': 'ok' },
      },
    ]);
    // A credential changes nothing, and is not needed.
    expect((await server.request('GET', '/readyz', { token: ADMIN_KEY })).body).toEqual(ready.body);
  });

  it('says sends are paused, APNs rejects the credential and a simulator stands in, and stays ready', async () => {
    let refused = false;
    const server = await startServer({
      health: {
        stopping: () => false,
        push: () => ({ apns: refused ? 'refused' : 'ok', 'web-push': 'simulator' }),
      },
    });
    await server.request('POST', '/v1/admin/pause', {
      token: ADMIN_KEY,
      json: { paused: true, retry_after: 60 },
    });
    refused = true;
    const ready = await server.request('GET', '/readyz');
    expect([ready.status, ready.body.sends, ready.body.push]).toEqual([
      200,
      'paused',
      { apns: 'refused', 'web-push': 'simulator' },
    ]);
  });

  it('is not ready once a stop began', async () => {
    const server = await startServer({ health: { stopping: () => true } });
    const ready = await server.request('GET', '/readyz');
    expect([ready.status, ready.body]).toEqual([
      503,
      {
        status: 'unavailable',
        checks: { database: 'ok', writes: 'ok', shutdown: 'stopping' },
        sends: 'open',
      },
    ]);
    expect((await server.request('GET', '/healthz')).status).toBe(200);
  });

  it('is not ready when the database does not respond, or lacks a migration', async () => {
    let fault: 'unreachable' | 'behind' = 'unreachable';
    const server = await startServer({
      wrapStore: (store: Store): Store =>
        Object.assign(Object.create(store), {
          schemaCurrent: async () => {
            if (fault === 'unreachable')
              throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
            return false;
          },
        }),
    });
    const unreachable = await server.request('GET', '/readyz');
    expect([unreachable.status, unreachable.body.checks.database, unreachable.body.sends]).toEqual([
      503,
      'unreachable',
      'unknown',
    ]);
    expect(unreachable.body.checks.writes).toBe('unknown');
    fault = 'behind';
    expect((await server.request('GET', '/readyz')).body.checks.database).toBe('migrations_pending');
  });

  it('is not ready when the database takes no writes (a read-only standby, a read-only disk)', async () => {
    let writable = true;
    const server = await startServer({
      wrapStore: (store: Store): Store =>
        Object.assign(Object.create(store), { canWrite: async () => writable && (await store.canWrite()) }),
    });
    expect((await server.request('GET', '/readyz')).status).toBe(200);
    writable = false;
    const ready = await server.request('GET', '/readyz');
    expect([ready.status, ready.body.status, ready.body.checks]).toEqual([
      503,
      'unavailable',
      { database: 'ok', writes: 'read_only', shutdown: 'ok' },
    ]);
  });
});

describe('metrics', () => {
  it('counts sends by endpoint and outcome, and reads the queue and destinations from the store', async () => {
    let queueReads = 0;
    const server = await startServer({
      metrics: (store, clock) => new Metrics(store, clock, PROVIDER_IDS),
      limits: { sendsInFlight: 1000 },
      wrapStore: (store: Store): Store =>
        Object.assign(Object.create(store), {
          queueStats: () => {
            queueReads += 1;
            return store.queueStats();
          },
        }),
    });
    const account = await createAccount(server);
    const send = (json: unknown, headers: Record<string, string> = {}) =>
      server.request('POST', '/v1/notifications', { token: account.token, json, headers });
    expect((await send({ message: 'one' })).status).toBe(202);
    expect((await send({ message: 'two' }, { 'idempotency-key': 'k1' })).status).toBe(202);
    expect((await send({ message: 'two' }, { 'idempotency-key': 'k1' })).status).toBe(202);
    expect((await send({ message: 'x', level: 'loud' })).status).toBe(400);
    expect((await server.request('GET', `/v1/send/${account.token}?message=hi`)).status).toBe(202);
    expect((await server.request('GET', '/v1/send/fox_send_nope?message=hi')).status).toBe(401);

    expect((await samples(server.metrics, 'foxbell_sends_total')).sort()).toEqual([
      'foxbell_sends_total{endpoint="json",outcome="accepted"} 2',
      'foxbell_sends_total{endpoint="json",outcome="invalid_field"} 1',
      'foxbell_sends_total{endpoint="json",outcome="replayed"} 1',
      'foxbell_sends_total{endpoint="url",outcome="accepted"} 1',
      'foxbell_sends_total{endpoint="url",outcome="unauthorized"} 1',
    ]);
    // Three accepted, none routed yet (no worker here): the oldest waits since the first send.
    server.clock.advance(90_000);
    expect(await samples(server.metrics, 'foxbell_route_queue_depth')).toEqual([
      'foxbell_route_queue_depth 3',
    ]);
    expect(await samples(server.metrics, 'foxbell_route_queue_oldest_seconds')).toEqual([
      'foxbell_route_queue_oldest_seconds 90',
    ]);
    expect(await samples(server.metrics, 'foxbell_destinations')).toContain(
      'foxbell_destinations{state="pending"} 0',
    );
    expect(await samples(server.metrics, 'foxbell_shed_total')).toEqual(['foxbell_shed_total 0']);
    // Both queue gauges of a scrape share one query.
    queueReads = 0;
    await server.metrics?.registry.metrics();
    expect(queueReads).toBe(1);
    expect((await server.metrics?.registry.metrics())?.includes('process_cpu_user_seconds_total')).toBe(true);
  });
});

describe('behind a reverse proxy', () => {
  /** A server whose log lines this test reads. */
  async function logged(trustProxy: string[] | undefined) {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const server = await startServer({
      logger: { level: 'info', stream },
      ...(trustProxy ? { trustProxy } : {}),
    });
    return { server, lines };
  }

  it('logs the client X-Forwarded-For names only when the peer is a proxy it trusts', async () => {
    const trusting = await logged(['127.0.0.1']);
    await trusting.server.request('GET', '/healthz', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(trusting.lines.find((line) => line.path === '/healthz')?.client).toBe('203.0.113.7');

    const elsewhere = await logged(['10.0.0.0/8']);
    await elsewhere.server.request('GET', '/healthz', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(elsewhere.lines.find((line) => line.path === '/healthz')?.client).toBe('127.0.0.1');

    const none = await logged(undefined);
    await none.server.request('GET', '/healthz', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(none.lines.find((line) => line.path === '/healthz')?.client).toBe('127.0.0.1');
  });
});
