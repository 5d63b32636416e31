import { describe, expect, it } from 'vitest';
import {
  bareAccount,
  createAccount,
  expectError,
  linkedDevice,
  routeQueued,
  startServer,
  type TestServer,
} from '../helpers.js';

/**
 * Each credential spends a budget of writes of its own: the account key one, each device key
 * another. A stolen phone's key can spend its own, never the budget its owner needs to take that
 * key away. A write that is rejected (4xx) or fails (5xx) changed nothing and gives its place back.
 */

/** `times` renames with the device key `key`, all taken. */
async function renameTimes(server: TestServer, key: string, times: number) {
  for (let i = 0; i < times; i += 1) {
    const renamed = await server.request('PATCH', '/v1/device', { token: key, json: { name: `n${i}` } });
    expect(renamed.status, renamed.text).toBe(200);
  }
}

/** `writes` changes with the account key, all taken: tokens made and revoked by turns. */
async function spendWrites(server: TestServer, accountKey: string, writes: number) {
  for (let done = 0; done < writes; done += 2) {
    const made = await server.request('POST', '/v1/tokens', { token: accountKey, json: {} });
    expect(made.status, made.text).toBe(201);
    if (done + 1 === writes) return;
    const revoked = await server.request('DELETE', `/v1/tokens/${made.body.id}`, { token: accountKey });
    expect(revoked.status, revoked.text).toBe(204);
  }
}

/** What a spent budget of changes returns: 429 rate_limited, its scope and limit, Retry-After. */
function expectChangesSpent(reply: Awaited<ReturnType<TestServer['request']>>, retryAfter: string) {
  const body = expectError(reply, 429, 'rate_limited');
  expect(body.error.details).toEqual({ scope: 'account_changes', limit: 60 });
  expect(reply.headers.get('retry-after')).toBe(retryAfter);
}

describe("a device key's writes have a budget of their own", () => {
  it('lets the account key take every credential away while a device key has spent its budget', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const token = await server.request('POST', '/v1/tokens', { token: ana.key, json: {} });
    const stolen = await linkedDevice(server, ana.key);
    const other = await linkedDevice(server, ana.key);
    // The stolen phone's key in tight loops, valid bodies and invalid ones.
    await renameTimes(server, stolen.key, 60);
    server.clock.advance(10_000);
    for (let i = 0; i < 30; i += 1) {
      expectChangesSpent(
        await server.request('PATCH', '/v1/device', { token: stolen.key, json: { name: 'again' } }),
        '50',
      );
      expectChangesSpent(
        await server.request('PATCH', '/v1/device', { token: stolen.key, json: { name: '' } }),
        '50',
      );
    }
    // Another device's key and the account key write as before.
    const renamed = await server.request('PATCH', '/v1/device', { token: other.key, json: { name: 'Mine' } });
    expect(renamed.status, renamed.text).toBe(200);
    // Every way the account key takes a credential away: revoke a token, remove the device, rotate
    // the key, delete the account.
    const revoked = await server.request('DELETE', `/v1/tokens/${token.body.id}`, { token: ana.key });
    expect(revoked.status, revoked.text).toBe(204);
    const removed = await server.request('DELETE', `/v1/devices/${stolen.id}`, { token: ana.key });
    expect(removed.status, removed.text).toBe(204);
    expectError(await server.request('GET', '/v1/inbox', { token: stolen.key }), 401, 'token_revoked');
    const rotated = await server.request('POST', '/v1/account/key', { token: ana.key, json: {} });
    expect(rotated.status, rotated.text).toBe(201);
    const deleted = await server.request('DELETE', '/v1/account', { token: rotated.body.key });
    expect(deleted.status, deleted.text).toBe(204);
    expectError(await server.request('GET', '/v1/inbox', { token: other.key }), 401, 'account_deleted');
  });

  it("keeps the account key's budget apart too: spent, it throttles no device key", async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const phone = await linkedDevice(server, ana.key);
    await spendWrites(server, ana.key, 59); // and the approval: 60
    expectChangesSpent(await server.request('POST', '/v1/tokens', { token: ana.key, json: {} }), '60');
    const renamed = await server.request('PATCH', '/v1/device', {
      token: phone.key,
      json: { name: 'Still' },
    });
    expect(renamed.status, renamed.text).toBe(200);
  });

  it('counts only writes that were taken: a rejected or failed write gives its place back', async () => {
    const server = await startServer();
    const ana = await bareAccount(server);
    const phone = await linkedDevice(server, ana.key);
    // 150 rejected bodies of every kind: none is one of the 60.
    for (let i = 0; i < 50; i += 1) {
      expectError(
        await server.request('PATCH', '/v1/device', { token: phone.key, json: { name: '' } }),
        400,
        'invalid_field',
        'name',
      );
      expectError(
        await server.request('PATCH', '/v1/device', { token: phone.key, json: { colour: 'red' } }),
        400,
        'invalid_field',
        'colour',
      );
      expectError(
        await server.request('PATCH', '/v1/device', {
          token: phone.key,
          body: 'x',
          contentType: 'text/plain',
        }),
        415,
        'unsupported_media_type',
      );
    }
    await renameTimes(server, phone.key, 60);
    expectChangesSpent(
      await server.request('PATCH', '/v1/device', { token: phone.key, json: { name: 'one more' } }),
      '60',
    );
    // The account key's rejected writes are not counted either: 70 removals of no device, then 60 taken.
    for (let i = 0; i < 70; i += 1) {
      expectError(
        await server.request('DELETE', '/v1/devices/dev_00000000000000000000', { token: ana.key }),
        404,
        'not_found',
        'id',
      );
    }
    await spendWrites(server, ana.key, 59); // and the approval: 60
    expectChangesSpent(await server.request('POST', '/v1/tokens', { token: ana.key, json: {} }), '60');
    server.clock.advance(60_000);
    const renamed = await server.request('PATCH', '/v1/device', {
      token: phone.key,
      json: { name: 'next minute' },
    });
    expect(renamed.status, renamed.text).toBe(200);
  });

  it('gives back a write that failed: 70 responded with 500 leave the 60 whole', async () => {
    let failing = false;
    const server = await startServer({
      wrapStore: (store) =>
        new Proxy(store, {
          get(target, name, receiver) {
            if (name === 'updateOwnDevice' && failing)
              return () => Promise.reject(new Error('a bug of ours'));
            return Reflect.get(target, name, receiver);
          },
        }),
    });
    const ana = await bareAccount(server);
    const phone = await linkedDevice(server, ana.key);
    failing = true;
    for (let i = 0; i < 70; i += 1) {
      expectError(
        await server.request('PATCH', '/v1/device', { token: phone.key, json: { name: `n${i}` } }),
        500,
        'internal_error',
      );
    }
    failing = false;
    await renameTimes(server, phone.key, 60);
    expectChangesSpent(
      await server.request('PATCH', '/v1/device', { token: phone.key, json: { name: 'one more' } }),
      '60',
    );
  });

  it("counts reports of what was opened per credential too: a device's reports leave the account key's", async () => {
    const server = await startServer({ limits: { eventsPerMinute: 3 } });
    const ana = await createAccount(server);
    const phone = await linkedDevice(server, ana.key);
    const sent = await server.request('POST', '/v1/notifications', {
      token: ana.token,
      json: { message: 'hi' },
    });
    expect(sent.status).toBe(202);
    await routeQueued(server);
    const report = (key: string, device: string | undefined) =>
      server.request('POST', `/v1/notifications/${sent.body.id}/events`, {
        token: key,
        json: { device_id: device, action: 'opened' },
      });
    for (let i = 0; i < 3; i += 1) expect((await report(phone.key, phone.id)).status).toBe(204);
    const limited = expectError(await report(phone.key, phone.id), 429, 'rate_limited');
    expect(limited.error.details).toEqual({ scope: 'account_events', limit: 3 });
    expect((await report(ana.key, ana.devices[0]?.id)).status).toBe(204);
    // A report of a device the notification did not go to is rejected, and not counted.
    for (let i = 0; i < 5; i += 1) {
      expectError(await report(ana.key, 'dev_00000000000000000000'), 400, 'invalid_field', 'device_id');
    }
    expect((await report(ana.key, ana.devices[1]?.id)).status).toBe(204);
    expect((await report(ana.key, ana.devices[2]?.id)).status).toBe(204);
    expectError(await report(ana.key, ana.devices[0]?.id), 429, 'rate_limited');
  });
});
