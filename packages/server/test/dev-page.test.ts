import { afterEach, describe, expect, it } from 'vitest';
import { ApnsSimulator } from '../src/apns/simulator.js';
import { buildApp } from '../src/app.js';
import { seedDevAccount } from '../src/dev-seed.js';
import { randomIds } from '../src/ids.js';
import { ManualClock } from './helpers.js';
import { openTestStore } from './test-database.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** The app with the device page, on a seeded dev account and a simulator (the routes are tested by inject). */
async function devApp(options: { simulator?: boolean } = {}) {
  const clock = new ManualClock();
  const store = await openTestStore();
  closing.push(() => store.close());
  const seed = await seedDevAccount(store, randomIds, clock);
  const sim = options.simulator === false ? undefined : await ApnsSimulator.start({ clock });
  if (sim) closing.push(() => sim.close());
  const app = buildApp({
    store,
    clock,
    devPage: {
      session: async () => seed && { accountId: seed.accountId, accountKey: seed.accountKey },
      simulator: () => sim,
    },
  });
  closing.push(() => app.close());
  return { app, seed, sim };
}

describe('the device page (--dev)', () => {
  it('serves the page at / and /devices with a policy that allows nothing from elsewhere', async () => {
    const { app } = await devApp();
    for (const url of ['/', '/devices']) {
      const reply = await app.inject({ url });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
      expect(reply.headers['content-security-policy']).toContain("script-src 'self'");
      expect(reply.body).toContain('<script type="module" src="/dev/page.js"></script>');
    }
    expect((await app.inject({ url: '/dev/page.js' })).headers['content-type']).toBe(
      'text/javascript; charset=utf-8',
    );
    expect((await app.inject({ url: '/dev/page.css' })).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    );
  });

  it('answers this machine only: another address gets 403 forbidden and no key', async () => {
    const { app } = await devApp();
    for (const url of ['/', '/devices', '/dev/session', '/dev/pushes']) {
      const reply = await app.inject({ url, remoteAddress: '192.0.2.7' });
      expect([reply.statusCode, reply.json().error.code], url).toEqual([403, 'forbidden']);
    }
    const local = await app.inject({ url: '/dev/session', remoteAddress: '::1' });
    expect(local.statusCode).toBe(200);
  });

  it('gives the page the dev account’s devices with their push tokens, and each device’s state of a send', async () => {
    const { app, seed } = await devApp();
    const session = (await app.inject({ url: '/dev/session' })).json();
    expect(session.account_key).toBe(seed?.accountKey);
    expect(session.simulator).toBe(true);
    expect(session.devices.map((d: { name: string; platform: string }) => [d.name, d.platform])).toEqual([
      ['iPhone', 'ios'],
      ['Apple Watch', 'watchos'],
      ['Vision Pro', 'visionos'],
    ]);
    for (const device of session.devices) expect(device.push_token).toMatch(/^[0-9a-f]{64}$/);

    const sent = await app.inject({
      method: 'POST',
      url: '/v1/notifications',
      headers: { authorization: `Bearer ${seed?.token}` },
      payload: { message: 'hi' },
    });
    expect(sent.statusCode).toBe(202);
    const record = await app.inject({ url: `/dev/notifications/${sent.json().id}` });
    expect(record.json()).toEqual({
      id: sent.json().id,
      status: 'accepted',
      reason: null,
      destinations: [],
      handled: [],
    });
    const unknown = await app.inject({ url: '/dev/notifications/ntf_nope' });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'not_found']);
  });

  it('says so when pushes go to a real APNs endpoint rather than the simulator', async () => {
    const { app } = await devApp({ simulator: false });
    expect((await app.inject({ url: '/dev/session' })).json().simulator).toBe(false);
  });

  it('is not there without --dev', async () => {
    const store = await openTestStore();
    closing.push(() => store.close());
    const app = buildApp({ store });
    closing.push(() => app.close());
    for (const url of ['/', '/devices', '/dev/session']) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });
});
