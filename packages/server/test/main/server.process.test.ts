import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import serverPackage from '../../package.json' with { type: 'json' };
import { APNS } from '../../src/delivery/apns/entry.js';
import { PROVIDERS } from '../../src/delivery/providers.js';
import { send } from '../helpers.js';
import {
  ADMIN,
  APNS_SIM_BIN,
  BIN,
  EXTRA_NODES,
  runScript,
  runToExit,
  startProcess,
  startQuietServer,
  tempDir,
} from '../processes.js';

async function accountWithToken(url: string) {
  const account = await send(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
  const token = await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
  return { key: account.body.key as string, token: token.body.token as string };
}

describe('foxbell-server, the process', () => {
  it('prints "listening on http://HOST:PORT" on stdout once it takes requests, on a free port', async () => {
    const server = await startProcess(['--data', await tempDir(), '--admin-key', ADMIN]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const reply = await send(server.url, 'GET', '/v1/scenes', { token: ADMIN });
    expect(reply.status).toBe(200);
    // Found by its name, as `kill -HUP $(pidof foxbell-server)` finds it.
    const pid = server.child.pid as number;
    expect((await readFile(`/proc/${pid}/comm`, 'utf8')).trim()).toBe('foxbell-server');
    expect(execFileSync('pidof', ['foxbell-server'], { encoding: 'utf8' }).split(' ').map(Number)).toContain(
      pid,
    );
  });

  it('prints its version, and only that, with --version', async () => {
    for (const flag of ['--version', '-V']) {
      expect(await runScript(BIN, [flag], {})).toEqual({
        code: 0,
        stdout: `${serverPackage.version}\n`,
        stderr: '',
      });
    }
  });

  it('makes its data directory private (0700 with its folders, every file 0600), whatever modes an older start left', async () => {
    const data = path.join(await tempDir(), 'data');
    const modes = async () => {
      const entries: Record<string, string> = { '.': ((await stat(data)).mode & 0o777).toString(8) };
      for (const name of await readdir(data)) {
        entries[name] = ((await stat(path.join(data, name))).mode & 0o777).toString(8);
      }
      return entries;
    };
    // As an older release left it: a directory others may read, and its files too.
    await mkdir(data, { mode: 0o755 });
    await chmod(data, 0o755);
    const first = await startProcess(['--data', data, '--admin-key', ADMIN, '--dev', '--log-level', 'warn']);
    first.child.kill('SIGTERM');
    await first.exited;
    await chmod(data, 0o755);
    for (const name of await readdir(data)) await chmod(path.join(data, name), 0o644);
    await writeFile(path.join(data, 'notes.txt'), 'left by the operator', { mode: 0o666 });

    const second = await startProcess(['--data', data, '--admin-key', ADMIN, '--dev', '--log-level', 'warn']);
    const found = await modes();
    expect(Object.keys(found)).toEqual(
      expect.arrayContaining([
        '.',
        'api.lock',
        'dev.json',
        'foxbell.db',
        'foxbell.db-shm',
        'foxbell.db-wal',
        'notes.txt',
      ]),
    );
    // The folder of its workers' lock files (owners) is a folder too.
    for (const [name, mode] of Object.entries(found)) {
      expect(mode, name).toBe(name === '.' || name === 'owners' ? '700' : '600');
    }
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('keeps what it makes while running private too: owner files of workers, journals, the WAL', async () => {
    const data = await tempDir();
    const server = await startProcess(['--data', data, '--log-level', 'warn'], { FOXBELL_ADMIN_KEY: ADMIN });
    const { key, token } = await accountWithToken(server.url);
    await addDevice(server.url, key, 'd'.repeat(64));
    const sent = await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
    expect((await deliveredStatus(server.url, token, sent.body.id)).status).toBe('sent_to_push');
    // Every file and folder below the data directory, as it is while the server runs.
    const modes: Record<string, string> = {};
    const walk = async (dir: string) => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const at = path.join(dir, entry.name);
        modes[path.relative(data, at)] = ((await stat(at)).mode & 0o777).toString(8);
        if (entry.isDirectory()) await walk(at);
      }
    };
    await walk(data);
    // The worker's owner file is made at its first lease, after the start-time pass.
    expect(Object.keys(modes).some((name) => /^owners\/wrk_\w+\.lock$/.test(name))).toBe(true);
    for (const [name, mode] of Object.entries(modes)) {
      expect(mode, name).toBe(name === 'owners' ? '700' : '600');
    }
  });

  it('loses nothing it responded with 202 for when killed with SIGKILL', async () => {
    const data = await tempDir();
    const first = await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    const { token } = await accountWithToken(first.url);
    const replies = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        send(first.url, 'POST', '/v1/notifications', { token, json: { message: `n${i}` } }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(25).fill(202));
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    for (const reply of replies) {
      const status = await send(second.url, 'GET', `/v1/notifications/${reply.body.id}/status`, { token });
      expect(status.status).toBe(200);
      expect(status.body.id).toBe(reply.body.id);
    }
  });

  it('stops on SIGTERM after finishing the requests in flight, and exits 0', async () => {
    const server = await startQuietServer();
    const { token } = await accountWithToken(server.url);
    // In flight for certain: the server has read the request's head (its 100 Continue says so)
    // when the signal comes, and the body follows the signal.
    const body = JSON.stringify({ message: 'last' });
    const request = httpRequest(`${server.url}/v1/notifications`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        expect: '100-continue',
      },
    });
    const answered = new Promise<number | undefined>((resolve, reject) => {
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      request.on('error', reject);
    });
    request.flushHeaders();
    await once(request, 'continue');
    server.child.kill('SIGTERM');
    request.end(body);
    expect(await answered).toBe(202);
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('with --drain-seconds, answers /readyz 503 on SIGTERM and serves on for that long, then stops', async () => {
    // One second: the test's two requests take a few milliseconds of it.
    const server = await startProcess(
      ['--data', await tempDir(), '--log-level', 'info', '--drain-seconds', '1'],
      {
        FOXBELL_ADMIN_KEY: ADMIN,
      },
    );
    const { token } = await accountWithToken(server.url);
    server.child.kill('SIGTERM');
    await expect
      .poll(() => server.stderr(), { timeout: 10_000, interval: 20 })
      .toContain('serving on meanwhile');
    const ready = await send(server.url, 'GET', '/readyz', {});
    expect([ready.status, ready.body.checks.shutdown]).toEqual([503, 'stopping']);
    // A load balancer has not yet noticed: a request that comes now is served, not rejected.
    const sent = await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: { message: 'draining' },
    });
    expect(sent.status).toBe(202);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toContain('stopping: no new requests');
  });

  it('lists every bad setting and where the settings are described, not the whole help, and exits 2', async () => {
    const [{ code, stderr }, unknownFlag] = await Promise.all([
      runToExit(['--port', 'eighty', '--log-level', 'loud'], { FOXBELL_RATE_PER_TOKEN: '0' }),
      runToExit(['--prot', '8080']),
    ]);
    expect([code, stderr]).toEqual([
      2,
      'foxbell-server: --port (FOXBELL_PORT) must be an integer from 0 to 65535, not "eighty"\n' +
        'foxbell-server: --rate-per-token (FOXBELL_RATE_PER_TOKEN) must be an integer from 1 to 1000000000, not "0"\n' +
        'foxbell-server: --log-level (FOXBELL_LOG_LEVEL) must be one of fatal, error, warn, info, debug, trace, silent, not "loud"\n' +
        'foxbell-server: `foxbell-server --help` lists every setting\n',
    ]);
    // A flag it does not know is said the same way.
    expect(unknownFlag).toEqual({
      code: 2,
      stderr:
        "foxbell-server: Unknown option '--prot'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--prot\"\nfoxbell-server: `foxbell-server --help` lists every setting\n",
    });
  });

  it('takes --lease-seconds, --sends-in-flight and --database-pool at their bounds, and rejects one past them', async () => {
    // Each start on its own, all at once.
    const atBounds = async (bounds: string[]) => {
      const server = await startProcess(['--data', await tempDir(), '--log-level', 'warn', ...bounds]);
      const status = (await send(server.url, 'GET', '/v1/scenes')).status;
      server.child.kill('SIGTERM');
      await server.exited;
      return status;
    };
    const [refused, above, ...served] = await Promise.all([
      runToExit(['--lease-seconds', '0', '--sends-in-flight', '0', '--database-pool', '1001'], {}),
      runToExit(['--lease-seconds', '3601', '--sends-in-flight', '1000001']),
      atBounds(['--lease-seconds', '1', '--sends-in-flight', '1', '--database-pool', '1']),
      atBounds(['--lease-seconds', '3600', '--sends-in-flight', '1000000', '--database-pool', '1000']),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--lease-seconds (FOXBELL_LEASE_SECONDS) must be an integer from 1 to 3600, not "0"',
    );
    expect(refused.stderr).toContain(
      '--sends-in-flight (FOXBELL_SENDS_IN_FLIGHT) must be an integer from 1 to 1000000, not "0"',
    );
    expect(refused.stderr).toContain(
      '--database-pool (FOXBELL_DATABASE_POOL) must be an integer from 1 to 1000, not "1001"',
    );
    expect(above.code).toBe(2);
    expect(above.stderr).toContain('must be an integer from 1 to 3600, not "3601"');
    expect(above.stderr).toContain('must be an integer from 1 to 1000000, not "1000001"');
    expect(served).toEqual([401, 401]);
  }, 30_000);

  it('takes settings from FOXBELL_* variables, a flag winning over its variable', async () => {
    const server = await startProcess(['--data', await tempDir(), '--admin-key', ADMIN], {
      FOXBELL_ADMIN_KEY: 'a-different-admin-key',
      FOXBELL_MONTHLY_QUOTA: '7',
    });
    const { token } = await accountWithToken(server.url);
    const reply = await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
    expect(reply.headers.get('x-ratelimit-limit')).toBe('7');
  });

  it('never writes a token to its log, the URL-token path included', async () => {
    const server = await startProcess([
      '--data',
      await tempDir(),
      '--admin-key',
      ADMIN,
      '--log-level',
      'info',
    ]);
    const { key, token } = await accountWithToken(server.url);
    await send(server.url, 'GET', `/v1/send/${token}?message=hi`);
    await send(server.url, 'GET', `/v1/send/${token}x?message=hi`);
    await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
    server.child.kill('SIGTERM');
    await server.exited;
    const log = server.stderr();
    expect(log).toContain('"path":"/v1/send/<redacted>"');
    expect(log).not.toContain('message=hi');
    for (const secret of [token, key, ADMIN, token.slice(9)]) expect(log).not.toContain(secret);
  });

  it('seeds a dev account with three devices and a token on the first --dev start, and reuses it after', async () => {
    const data = await tempDir();
    const first = await startProcess(['--data', data, '--dev', '--log-level', 'warn']);
    const token = /send token: +(fox_send_[A-Za-z0-9]{32})/.exec(first.stdout())?.[1];
    expect(token).toBeDefined();
    const devices = await send(first.url, 'GET', '/v1/devices', { token: token as string });
    expect(devices.body.devices).toEqual([
      { name: 'iPhone', platform: 'ios' },
      { name: 'Apple Watch', platform: 'watchos' },
      { name: 'Vision Pro', platform: 'visionos' },
    ]);
    first.child.kill('SIGTERM');
    await first.exited;
    const second = await startProcess(['--data', data, '--dev', '--log-level', 'warn']);
    // The token is shown once, by the start that made it.
    expect(second.stdout()).toContain(`send token:  in ${path.join(data, 'dev.json')}`);
    expect(second.stdout()).not.toContain(token);
    const again = await send(second.url, 'GET', '/v1/devices', { token: token as string });
    expect(again.body.devices).toHaveLength(3);
    const saved = JSON.parse(await readFile(path.join(data, 'dev.json'), 'utf8'));
    expect(saved.token).toBe(token);
  });
});

/**
 * Polls a notification's status until it leaves `accepted` (delivery runs on real time here). The
 * bound is the test's own limit, not a guess of how fast delivery is on a busy machine.
 */
async function deliveredStatus(url: string, token: string, id: string) {
  const deadline = Date.now() + 25_000;
  while (Date.now() < deadline) {
    const reply = await send(url, 'GET', `/v1/notifications/${id}/status`, { token });
    if (reply.body.status !== 'accepted') return reply.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('still accepted after 25 s');
}

async function addDevice(url: string, key: string, pushToken: string) {
  const reply = await send(url, 'POST', '/v1/devices', {
    token: key,
    json: { name: 'Phone', platform: 'ios', push_token: pushToken },
  });
  expect(reply.status, reply.text).toBe(201);
}

describe('foxbell-server, delivering', () => {
  it('delivers through its own workers to the built-in simulator, whose control API it prints when asked', async () => {
    const server = await startQuietServer(['--apns-sim-control']);
    const control = /APNs simulator control API on (http:\/\/\S+)/.exec(server.stdout())?.[1];
    expect(control).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { key, token } = await accountWithToken(server.url);
    await addDevice(server.url, key, 'e'.repeat(64));
    const sent = await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
    const record = await deliveredStatus(server.url, token, sent.body.id);
    expect([record.status, record.destinations[0].state, record.destinations[0].push_status]).toEqual([
      'sent_to_push',
      'accepted',
      200,
    ]);
    const pushes = await send(control as string, 'GET', `/v1/pushes?push_token=${'e'.repeat(64)}`, {});
    expect(
      pushes.body.pushes.map(
        (push: { payload: { aps: { alert: { body: string } } } }) => push.payload.aps.alert.body,
      ),
    ).toEqual(['hi']);
    // Readiness says who gets APNs pushes: the simulator, not Apple; every other provider is ok.
    const ready = await send(server.url, 'GET', '/readyz', {});
    expect([ready.status, ready.body.push]).toEqual([
      200,
      Object.fromEntries(Object.values(PROVIDERS).map(({ id }) => [id, id === APNS ? 'simulator' : 'ok'])),
    ]);
    expect(ready.body.push).toMatchObject({ apns: 'simulator', 'web-push': 'ok' });
  });

  it('serves Prometheus metrics on their own listener with --metrics, pushes counted, and not on the API port', async () => {
    const server = await startProcess([
      ...['--data', await tempDir(), '--admin-key', ADMIN, '--log-level', 'warn'],
      ...['--metrics', '127.0.0.1:0'],
    ]);
    const metricsUrl = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)\n/.exec(
      server.stdout(),
    )?.[1] as string;
    expect(metricsUrl).toBeDefined();
    const { key, token } = await accountWithToken(server.url);
    await addDevice(server.url, key, 'f'.repeat(64));
    const sent = await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
    expect((await deliveredStatus(server.url, token, sent.body.id)).status).toBe('sent_to_push');

    const scrape = await fetch(metricsUrl);
    expect([scrape.status, scrape.headers.get('content-type')]).toEqual([
      200,
      'text/plain; version=0.0.4; charset=utf-8',
    ]);
    const text = await scrape.text();
    for (const line of [
      'foxbell_sends_total{endpoint="json",outcome="accepted"} 1',
      'foxbell_pushes_total{provider="apns",status="200"} 1',
      'foxbell_push_duration_seconds_count 1',
      'foxbell_route_queue_depth 0',
      'foxbell_route_queue_oldest_seconds 0',
      'foxbell_destinations{state="accepted"} 1',
      'foxbell_shed_total 0',
    ]) {
      expect(text.split('\n'), line).toContain(line);
    }
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    // Only /metrics there; none on the API's port.
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
    const onApi = await send(server.url, 'GET', '/metrics', {});
    expect([onApi.status, onApi.body.error.code]).toEqual([404, 'not_found']);
    // On loopback, only a request naming this machine: not a page whose name was rebound here.
    const port = Number(new URL(metricsUrl).port);
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(`${head}\r\nConnection: close\r\n\r\n`));
        let answer = '';
        socket.on('data', (chunk) => {
          answer += chunk;
        });
        socket.on('end', () => resolve(answer.split('\r\n')[0] as string));
        socket.on('error', reject);
      });
    expect(await raw('GET /metrics HTTP/1.1\r\nHost: attacker.example')).toBe('HTTP/1.1 403 Forbidden');
    expect(await raw(`GET http://attacker.example:${port}/metrics HTTP/1.1\r\nHost: localhost:${port}`)).toBe(
      'HTTP/1.1 403 Forbidden',
    );
    expect(await raw(`GET /metrics HTTP/1.1\r\nHost: localhost:${port}`)).toBe('HTTP/1.1 200 OK');
  });

  it('serves the API with --no-workers while `foxbell-server worker` delivers from the same data', async () => {
    const data = await tempDir();
    const api = await startProcess([
      '--data',
      data,
      '--admin-key',
      ADMIN,
      '--no-workers',
      '--log-level',
      'warn',
    ]);
    expect(api.stdout()).not.toContain('simulator');
    const { key, token } = await accountWithToken(api.url);
    await addDevice(api.url, key, 'f'.repeat(64));
    const sent = await send(api.url, 'POST', '/v1/notifications', { token, json: { message: 'via worker' } });
    // The API process opened no push service (no simulator above), so it can deliver nothing:
    // the send waits for a worker.
    expect(
      (await send(api.url, 'GET', `/v1/notifications/${sent.body.id}/status`, { token })).body.status,
    ).toBe('accepted');
    const worker = await startProcess(['worker', '--data', data], {}, /worker (wrk_\w+) delivering from/);
    expect(worker.url).toMatch(/^wrk_/);
    const record = await deliveredStatus(api.url, token, sent.body.id);
    expect(record.status).toBe('sent_to_push');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
  });

  it('outside --dev, serves no simulator control API unless asked, and warns that APNs devices get nothing once one is pushed', async () => {
    const warning =
      'foxbell-server: warning: delivering APNs devices to the built-in simulator: no app of theirs gets a notification. ' +
      'Give --apns production (or sandbox) with --apns-key-file, --apns-key-id and --apns-team-id; --dev for a trial\n';
    const server = await startQuietServer(['--web-push-subject', 'mailto:ops@example.com']);
    expect(server.stdout()).not.toContain('control API');
    // Nothing to say while no push can reach the simulator: a Web Push deployment never hears of it.
    const { key, token } = await accountWithToken(server.url);
    const sendOne = async () => {
      const sent = await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'hi' } });
      return deliveredStatus(server.url, token, sent.body.id);
    };
    expect((await sendOne()).status).toBe('dropped');
    expect(server.stderr()).toBe('');
    // Said at the first push it takes, once.
    await addDevice(server.url, key, 'f'.repeat(64));
    expect((await sendOne()).status).toBe('sent_to_push');
    expect(server.stderr()).toBe(warning);
    expect((await sendOne()).status).toBe('sent_to_push');
    expect(server.stderr()).toBe(warning);
    // A worker, a start with a port for a control API that is off, and a --dev start: at once.
    const [workerData, refusedData, devData] = await Promise.all([tempDir(), tempDir(), tempDir()]);
    const [worker, refused, dev] = await Promise.all([
      startProcess(['worker', '--data', workerData], {}, /worker (wrk_\w+) delivering from/),
      runToExit(['--data', refusedData, '--apns-sim-control-port', '9911']),
      startProcess(['--data', devData, '--dev', '--log-level', 'warn']),
    ]);
    expect(worker.stderr()).not.toContain('built-in simulator');
    // Without a VAPID subject of the operator's own, Web Push is signed with the project's page.
    expect(worker.stderr()).toContain(
      'foxbell-server: warning: Web Push is signed with the subject https://github.com/foxbell/foxbell: ' +
        'give --web-push-subject mailto:you@example.com, so push services can reach you about your pushes\n',
    );
    expect(worker.stdout()).not.toContain('control API');
    // A port for a control API that is off is a mistake, not silently ignored.
    expect([refused.code, refused.stderr]).toEqual([
      2,
      expect.stringContaining(
        'foxbell-server: --apns-sim-control-port (FOXBELL_APNS_SIM_CONTROL_PORT) needs --apns-sim-control (or --dev)\n',
      ),
    ]);
    // In dev mode it is on, and the warning is not needed: a trial is what --dev is for.
    expect(dev.stdout()).toMatch(/APNs simulator control API on http:\/\/127\.0\.0\.1:\d+/);
    expect(dev.stderr()).not.toContain('warning');
  });

  it('stops no process on SIGHUP: the API without TLS, a worker and the standalone simulator each say so and go on', async () => {
    const data = await tempDir();
    const api = await startProcess([
      '--data',
      data,
      '--admin-key',
      ADMIN,
      '--no-workers',
      '--log-level',
      'info',
    ]);
    // The worker once the API has made the database; the simulator meanwhile.
    const [worker, sim] = await Promise.all([
      startProcess(['worker', '--data', data], {}, /worker (wrk_\w+) delivering from/),
      startProcess(['--cleartext'], {}, /foxbell-apns-sim listening on (http:\/\/\S+)/, APNS_SIM_BIN),
    ]);
    for (const running of [api, worker, sim]) running.child.kill('SIGHUP');
    await expect.poll(() => api.stderr()).toContain('"msg":"nothing to read again: no --tls-cert"');
    await expect.poll(() => worker.stderr()).toContain('"msg":"nothing to read again"');
    await expect.poll(() => sim.stderr()).toContain('foxbell-apns-sim: SIGHUP: nothing to read again');
    // Still serving: a signal that ended them would have done so at once.
    expect((await send(api.url, 'GET', '/healthz')).status).toBe(200);
    for (const running of [api, worker, sim]) expect(running.child.exitCode).toBeNull();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
  });

  it('refuses to serve sends from data another server is serving', async () => {
    const data = await tempDir();
    await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    const { code, stderr } = await runToExit(['--port', '0', '--data', data]);
    expect(code).toBe(1);
    expect(stderr).toContain(`another foxbell-server is serving sends from ${data}`);
  });

  it('rejects data written by a newer release in one line, exits 1 and leaves it as it was', async () => {
    const data = await tempDir();
    const first = await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    first.child.kill('SIGTERM');
    await first.exited;
    const file = path.join(data, 'foxbell.db');
    const db = new DatabaseSync(file);
    const released = Number(
      (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
    );
    db.exec(`PRAGMA user_version = ${released + 1}`);
    db.close();
    const { code, stderr } = await runToExit(['--port', '0', '--data', data]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `foxbell-server: the database is at schema version ${released + 1}, written by a newer foxbell-server (this one knows up to ${released}); run that release or a later one: this one leaves the database as it is\n`,
    );
    const after = new DatabaseSync(file);
    expect(after.prepare('PRAGMA user_version').get()).toEqual({ user_version: released + 1 });
    after.close();
  });
});

describe('foxbell-apns-sim settings', () => {
  it('lists every bad setting at once, and where the settings are described, and exits 2', async () => {
    const { code, stderr } = await runToExit(
      ['--key-file', '/nonexistent.p8', '--port', 'x'],
      {},
      { bin: APNS_SIM_BIN },
    );
    expect([code, stderr]).toEqual([
      2,
      'foxbell-apns-sim: --port must be an integer from 0 to 65535, not "x"\n' +
        'foxbell-apns-sim: --key-file needs --key-id and --team-id\n' +
        'foxbell-apns-sim: `foxbell-apns-sim --help` lists every setting\n',
    ]);
  });

  it('says why a start with good settings failed, in one line, and exits 1', async () => {
    const { code, stderr } = await runToExit(
      ['--key-file', '/nonexistent.p8', '--key-id', 'ABC123DEFG', '--team-id', 'DEF123GHIJ'],
      {},
      { bin: APNS_SIM_BIN },
    );
    expect([code, stderr]).toEqual([
      1,
      "foxbell-apns-sim: ENOENT: no such file or directory, open '/nonexistent.p8'\n",
    ]);
  });
});

describe('on a Node.js older than the one package.json names', () => {
  const floor = Number(/^>=(\d+)$/.exec(serverPackage.engines.node)?.[1]);
  const message = (command: string, version: string) =>
    `${command} needs Node.js ${floor} or newer; this is Node.js ${version}.\n` +
    'Install a current one (for example `npm i -g --prefix ~/.node node`, then put ~/.node/bin first on PATH).\n';
  // This Node.js, told it is an older one before the command's first line runs.
  const pretending = (version: string) => [
    '--import',
    `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`,
  ];

  it.each([
    ['foxbell-server', BIN],
    ['foxbell-apns-sim', APNS_SIM_BIN],
  ])('%s says which Node.js it needs and exits 1, without loading the server', async (command, bin) => {
    const version = `${floor - 1}.9.0`;
    expect(await runToExit([], {}, { nodeArgs: pretending(version), bin })).toEqual({
      code: 1,
      stderr: message(command, version),
    });
  });

  // CI names Node 22 (FOXBELL_EXTRA_NODES), which has no stable node:sqlite.
  const olderNodes = EXTRA_NODES.map((node) => ({
    node,
    version: execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim(),
  })).filter(({ version }) => Number(version.split('.')[0]) < floor);
  for (const { node, version } of olderNodes) {
    it(`foxbell-server on Node.js ${version} says so too`, async () => {
      expect(await runToExit(['--dev'], {}, { node })).toEqual({
        code: 1,
        stderr: message('foxbell-server', version),
      });
    });
  }
});
