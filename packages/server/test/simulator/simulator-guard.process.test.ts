import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildSimulatorControl } from '../../src/simulator/control.js';
import { PushHistory } from '../../src/simulator/push-history.js';
import { type ForeignHost, makeForeignHost } from '../foreign-host.js';
import { ManualClock } from '../helpers.js';
import { ADMIN, startProcess, tempDir } from '../processes.js';
import { startSimulator } from '../simulated-apns.js';

const TOKEN = 'ab'.repeat(32);

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A raw HTTP/1.1 request with exactly these headers (fetch would set Host and Origin itself). */
function call(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function control() {
  const { sim } = await startSimulator(new ManualClock());
  const app = buildSimulatorControl(sim);
  closing.push(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return { sim, port, host: `127.0.0.1:${port}` };
}

describe("the simulator's control API responds to this machine's own callers only", () => {
  it('takes JSON bodies only: a text/plain or form POST (what another site may send unasked) is 415', async () => {
    const { port, host } = await control();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const reply = await call(
        port,
        'POST',
        `/v1/tokens/${TOKEN}/unregister`,
        { host, 'content-type': type },
        '{}',
      );
      expect([reply.status, JSON.parse(reply.text).error.code], type).toEqual([
        415,
        'unsupported_media_type',
      ]);
    }
    const json = await call(
      port,
      'POST',
      `/v1/tokens/${TOKEN}/unregister`,
      { host, 'content-type': 'application/json' },
      '{}',
    );
    expect(json.status).toBe(204);
  });

  it('rejects a Host that is not this machine (DNS rebinding) and a request from another web origin', async () => {
    const { port, host } = await control();
    for (const headers of [
      { host: `attacker.example:${port}` },
      { host: `localhost:${port + 1}` },
      { host, origin: 'http://attacker.example' },
      { host, origin: `http://attacker.example:${port}` },
      { host, origin: 'null' },
    ]) {
      const reply = await call(port, 'GET', '/v1/pushes', headers);
      expect([reply.status, JSON.parse(reply.text).error.code], JSON.stringify(headers)).toEqual([
        403,
        'forbidden',
      ]);
    }
    for (const headers of [
      { host },
      { host: `localhost:${port}` },
      { host, origin: `http://localhost:${port}` },
    ]) {
      expect((await call(port, 'GET', '/v1/pushes', headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('says what was wrong in its own words, never a parser’s or OpenSSL’s', async () => {
    const { port, host } = await control();
    const badKey = await call(
      port,
      'POST',
      '/v1/keys',
      { host, 'content-type': 'application/json' },
      JSON.stringify({
        key_id: 'K',
        team_id: 'T',
        key: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----',
      }),
    );
    expect(badKey.status).toBe(400);
    expect(JSON.parse(badKey.text).error).toEqual({
      code: 'invalid_request',
      message: 'key must be an EC key in PEM (a .p8 file or its public half)',
    });
    const badJson = await call(
      port,
      'POST',
      '/v1/keys',
      { host, 'content-type': 'application/json' },
      '{"key_id":',
    );
    expect(JSON.parse(badJson.text).error).toEqual({
      code: 'invalid_request',
      message: 'the body is not valid JSON',
    });
  });
});

describe('the built-in simulator with foxbell-server --host 0.0.0.0', () => {
  let foreign: ForeignHost;
  beforeAll(() => {
    foreign = makeForeignHost();
  });
  afterAll(() => foreign?.remove());

  it('listens on loopback only, push port and control API alike', async () => {
    const server = await startProcess([
      ...['--host', '0.0.0.0', '--admin-key', ADMIN, '--data', await tempDir()],
      '--apns-sim-control',
    ]);
    const controlUrl = /APNs simulator control API on (http:\/\/\S+)/.exec(server.stdout())?.[1] as string;
    expect(controlUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const controlPort = Number(new URL(controlUrl).port);
    // Reached from this machine, rejected from another.
    const local = await fetch(`${controlUrl}/v1/pushes`);
    expect(local.status).toBe(200);
    const remote = await foreign.exchange(controlPort, `GET /v1/pushes HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(remote).toBe('ERROR ECONNREFUSED');
    // The API itself does listen on every address, as asked.
    const port = Number(new URL(server.url).port);
    const api = await foreign.exchange(
      port,
      'GET /v1/scenes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(api.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
  });
});

describe('the simulator remembers a bounded history', () => {
  it.each([
    // [pushes to a, to b, per device, total] → what is kept of a and of b
    [5, 0, 3, 100, ['a2', 'a3', 'a4'], []],
    [3, 3, 10, 4, ['a1', 'a2'], ['b1', 'b2']],
    [150, 0, 100, 10_000, Array.from({ length: 100 }, (_, i) => `a${i + 50}`), []],
  ])('a:%i b:%i per device %i, total %i', (toA, toB, perDevice, total, keptA, keptB) => {
    const history = new PushHistory<string>({ perDevice, total });
    for (let i = 0; i < Math.max(toA, toB); i += 1) {
      if (i < toA) history.add('a', `a${i}`, '200');
      if (i < toB) history.add('b', `b${i}`, '410');
    }
    expect(history.items('a')).toEqual(keptA);
    expect(history.items('b')).toEqual(keptB);
    // In all: what each keeps, in arrival order.
    const all = history.items();
    expect([...all].sort()).toEqual([...keptA, ...keptB].sort());
    expect(all.length).toBeLessThanOrEqual(total);
    expect(history.counts()).toEqual({ ...(toA ? { '200': toA } : {}), ...(toB ? { '410': toB } : {}) });
  });

  it('stays bounded over a long run with many devices, in memory as in what it lists', () => {
    const history = new PushHistory<number>({ perDevice: 5, total: 50 });
    for (let i = 0; i < 100_000; i += 1) history.add(`device${i % 37}`, i, '200');
    const all = history.items();
    expect(all).toHaveLength(50);
    expect(all).toEqual(Array.from({ length: 50 }, (_, i) => 100_000 - 50 + i));
    expect(history.counts()).toEqual({ '200': 100_000 });
    history.clear();
    expect(history.items()).toEqual([]);
    expect(history.counts()).toEqual({});
  });
});
