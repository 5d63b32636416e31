import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { MAX_PUSH_STREAMS } from '../../src/dev/page-routes.js';
import { seedDevAccount } from '../../src/dev/seed.js';
import { randomIds } from '../../src/kernel/ids.js';
import { ApnsSimulator } from '../../src/simulator/simulator.js';
import { type ForeignHost, makeForeignHost } from '../foreign-host.js';
import { ManualClock } from '../helpers.js';
import { apiProviders } from '../providers.js';
import { openTestStore } from '../test-database.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

const CHROMIUM = process.env.FOXBELL_CHROMIUM ?? '/usr/bin/chromium';

/** Sends `bytes` over a raw connection from `localAddress` and returns what came back. */
function exchange(port: number, bytes: string, options: { host?: string; localAddress?: string } = {}) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect({ port, host: options.host ?? '127.0.0.1', ...options });
    let out = '';
    socket.on('data', (chunk) => {
      out += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(out));
    socket.write(bytes);
  });
}

/** A request over real HTTP from this machine, as the page makes it. */
async function call(base: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  return {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body: text,
    json: () => JSON.parse(text),
  };
}

/** The app with the device page, on a seeded dev account and a simulator, listening on `host`. */
async function devApp(options: { simulator?: boolean; host?: string } = {}) {
  const clock = new ManualClock();
  const store = await openTestStore();
  closing.push(() => store.close());
  const seed = await seedDevAccount(store, randomIds, clock);
  const sim = options.simulator === false ? undefined : await ApnsSimulator.start({ clock });
  if (sim) closing.push(() => sim.close());
  const app = buildApp({
    store,
    clock,
    providers: apiProviders(store, clock),
    devPage: {
      session: async () => seed && { accountId: seed.accountId, accountKey: seed.accountKey },
      simulator: () => sim,
    },
  });
  closing.push(() => app.close());
  await app.listen({ port: 0, host: options.host ?? '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  return { app, seed, sim, port, url };
}

describe('the device page (--dev)', () => {
  it('serves the page at / and /devices with a policy that allows nothing from elsewhere', async () => {
    const { url: base } = await devApp();
    for (const url of ['/', '/devices']) {
      const reply = await call(base, url);
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
      expect(reply.headers['content-security-policy']).toContain("script-src 'self'");
      expect(reply.body).toContain('<script type="module" src="/dev/page.js"></script>');
    }
    expect((await call(base, '/dev/page.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await call(base, '/dev/page.css')).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  describe('responds to this machine only', () => {
    let foreign: ForeignHost;
    beforeAll(() => {
      foreign = makeForeignHost();
    });
    afterAll(() => foreign?.remove());

    it('rejects another host, whatever spelling of the path the router matches', async () => {
      const { port, seed } = await devApp({ host: '0.0.0.0' });
      for (const target of [
        '/',
        '/devices',
        '/dev/session',
        '/dev/pushes',
        '/%64ev/session',
        '/de%76/session',
        '/%64ev/pushes',
        '/dev/page.js',
        'http://x/dev/session',
        `http://localhost:${port}/dev/session`,
      ]) {
        const answer = await foreign.exchange(
          port,
          `GET ${target} HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
        );
        expect(answer.split('\r\n')[0], target).toBe('HTTP/1.1 403 Forbidden');
        expect(answer, target).toMatch(/\r\nx-request-id: req_\w+\r\n/i);
        expect(answer, target).toContain('"code":"forbidden"');
        expect(answer, target).not.toContain(seed?.accountKey as string);
      }
      // The API itself is for every host.
      const api = await foreign.exchange(
        port,
        `GET /v1/scenes HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n`,
      );
      expect(api.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    });

    it('rejects a local peer that names another host (DNS rebinding), and takes any name of this machine', async () => {
      const { port, seed } = await devApp({ host: '::' });
      const get = (host: string, options: { host?: string; localAddress?: string } = {}) =>
        exchange(port, `GET /dev/session HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`, options);
      for (const host of [
        `attacker.example:${port}`,
        `localhost.attacker.example:${port}`,
        `127.0.0.1.nip.io:${port}`,
        `localhost:${port + 1}`,
        'localhost',
        `127.0.0.2:${port}`,
        '',
      ]) {
        const answer = await get(host);
        expect(answer.split('\r\n')[0], host).toBe('HTTP/1.1 403 Forbidden');
        expect(answer, host).not.toContain(seed?.accountKey as string);
      }
      // An absolute-form target names the host, whatever Host says (RFC 9112, 3.2.2).
      for (const target of [`http://attacker.example:${port}/dev/session`, 'http://[/dev/session']) {
        const answer = await exchange(
          port,
          `GET ${target} HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
        );
        expect(answer, target).not.toContain(seed?.accountKey as string);
        expect(answer.split('\r\n')[0], target).toMatch(/^HTTP\/1\.1 (403 Forbidden|400 Bad Request)$/);
      }
      const named = await exchange(
        port,
        `GET http://localhost:${port}/dev/session HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`,
      );
      expect(named.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      for (const [host, options] of [
        [`localhost:${port}`, {}],
        [`LOCALHOST:${port}`, {}],
        [`127.0.0.1:${port}`, {}],
        // Any address of 127.0.0.0/8 is this machine.
        [`127.0.0.1:${port}`, { localAddress: '127.0.0.2' }],
        [`[::1]:${port}`, { host: '::1' }],
      ] as const) {
        const answer = await get(host, options);
        expect(answer.split('\r\n')[0], host).toBe('HTTP/1.1 200 OK');
        expect(answer, host).toContain(seed?.accountKey as string);
      }
    });

    it('keeps the key from a web page whose name was rebound to 127.0.0.1, in a real browser', async () => {
      if (!existsSync(CHROMIUM)) {
        throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set FOXBELL_CHROMIUM)`);
      }
      const { port, seed } = await devApp();
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1'],
      });
      try {
        const page = await browser.newPage();
        // The attacker's page, now served from 127.0.0.1 under the attacker's name: any response will do.
        await page.goto(`http://rebind.attacker.test:${port}/v1/scenes`);
        const stolen = await page.evaluate(async () => {
          const response = await fetch('/dev/session');
          return { status: response.status, body: await response.text() };
        });
        expect(stolen.status).toBe(403);
        expect(stolen.body).not.toContain(seed?.accountKey as string);
        // The same browser at the machine's own name gets the page.
        await page.goto(`http://localhost:${port}/devices`);
        const own = await page.evaluate(async () => (await fetch('/dev/session')).status);
        expect(own).toBe(200);
      } finally {
        await browser.close();
      }
    }, 30_000);
  });

  it('gives the page the dev account’s devices with their push tokens, and each device’s state of a send', async () => {
    const { url: base, seed } = await devApp();
    const session = (await call(base, '/dev/session')).json();
    expect(session.account_key).toBe(seed?.accountKey);
    expect(session.simulator).toBe(true);
    expect(session.devices.map((d: { name: string; platform: string }) => [d.name, d.platform])).toEqual([
      ['iPhone', 'ios'],
      ['Apple Watch', 'watchos'],
      ['Vision Pro', 'visionos'],
    ]);
    for (const device of session.devices) expect(device.push_token).toMatch(/^[0-9a-f]{64}$/);

    const sent = await call(base, '/v1/notifications', {
      method: 'POST',
      headers: { authorization: `Bearer ${seed?.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' }),
    });
    expect(sent.statusCode).toBe(202);
    const record = await call(base, `/dev/notifications/${sent.json().id}`);
    expect(record.json()).toEqual({
      id: sent.json().id,
      status: 'accepted',
      reason: null,
      destinations: [],
      handled: [],
    });
    const unknown = await call(base, '/dev/notifications/ntf_nope');
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'not_found']);

    // A device removed says so, and why, in the words its card shows.
    const [, watch] = session.devices;
    const removed = await call(base, `/v1/devices/${watch.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${seed?.accountKey}` },
    });
    expect(removed.statusCode).toBe(204);
    const after = (await call(base, '/dev/session')).json();
    expect(after.devices[1]).toMatchObject({
      id: watch.id,
      active: false,
      inactive_reason: 'removed',
      inactive: 'It was removed: link it again to receive notifications on it.',
    });
    expect('inactive' in after.devices[0]).toBe(false);
  });

  it(`keeps at most ${MAX_PUSH_STREAMS} live push streams: one more closes the oldest`, async () => {
    const { port } = await devApp();
    const open = (index: number) =>
      new Promise<{ index: number; ended: Promise<number> }>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1' });
        socket.on('error', reject);
        let text = '';
        let markEnded: (index: number) => void = () => {};
        const ended = new Promise<number>((done) => {
          markEnded = done;
        });
        socket.on('data', (chunk) => {
          text += chunk;
          if (text.includes('event: ready')) resolve({ index, ended });
          // The last chunk of a chunked response: the stream was ended by the server.
          if (text.endsWith('\r\n0\r\n\r\n')) markEnded(index);
        });
        socket.write(`GET /dev/pushes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        closing.push(async () => socket.destroy());
      });
    const streams = [];
    for (let index = 0; index < MAX_PUSH_STREAMS; index += 1) streams.push(await open(index));
    const newest = await open(MAX_PUSH_STREAMS);
    expect(await Promise.race([streams[0]?.ended, newest.ended, sleep(2000).then(() => 'none')])).toBe(0);
    const stillOpen = await Promise.race([
      ...streams.slice(1).map((stream) => stream.ended),
      sleep(200).then(() => 'none'),
    ]);
    expect(stillOpen).toBe('none');
  });

  it('says so when pushes go to a real APNs endpoint rather than the simulator', async () => {
    const { url: base } = await devApp({ simulator: false });
    expect((await call(base, '/dev/session')).json().simulator).toBe(false);
  });

  it('is not there without --dev', async () => {
    const store = await openTestStore();
    closing.push(() => store.close());
    const app = buildApp({ store, providers: apiProviders(store) });
    closing.push(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    for (const url of ['/devices', '/dev/session']) {
      expect((await call(base, url)).statusCode, url).toBe(404);
    }
    // The root leads to the web app instead.
    const root = await call(base, '/', { redirect: 'manual' });
    expect([root.statusCode, root.headers.location]).toEqual([302, '/app/']);
  });
});
