import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@foxbell/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount, notify, type Service, startService, using } from './helpers.js';

/** A well-formed send token no server issued. */
const FOREIGN_TOKEN = `fox_send_${'Zz9'.repeat(10)}zz`;

let limited: Service;
let throttled: Service;
let undelivered: Service;
beforeAll(async () => {
  [limited, throttled, undelivered] = await Promise.all([
    startService(['--monthly-quota', '1']),
    startService(['--rate-per-token', '1']),
    startService(['--no-workers']),
  ]);
});

describe('exit codes', () => {
  it('3 for a token the service does not know, with the code and what to do next', async () => {
    const run = await notify(['send', 'hi'], { env: using(undelivered, FOREIGN_TOKEN) });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /code: unauthorized \(HTTP 401\)\n {2}request id: req_\S+\n {2}next: Check token and address\n/,
    );
  });

  it('3 for no token at all, saying where one comes from', async () => {
    const run = await notify(['send', 'hi'], { env: { NOTIFY_BASE_URL: undelivered.url } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('error: No send token');
    expect(run.stderr).toContain('next: Set NOTIFY_TOKEN, or save one with `notify login`');
  });

  it('3 for a permission the token lacks (device names)', async () => {
    const account = await createAccount(undelivered, { device_names: false });
    const run = await notify(['devices'], { env: using(undelivered, account.token) });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('code: forbidden (HTTP 403)');
  });

  it('4 for the monthly quota, with when it resets', async () => {
    const account = await createAccount(limited);
    const env = using(limited, account.token);
    expect((await notify(['send', 'one'], { env })).code).toBe(0);
    const run = await notify(['send', 'two'], { env });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('code: quota_exceeded (HTTP 429)');
    expect(run.stderr).toMatch(/quota resets: \d{4}-\d{2}-01T00:00:00.000Z/);
    expect(run.stderr).toContain('next: Do not retry; wait for next UTC month');
  });

  it('4 for the rate limit once the retries allowed are spent', async () => {
    const account = await createAccount(throttled);
    const env = using(throttled, account.token);
    expect((await notify(['send', 'one'], { env })).code).toBe(0);
    const run = await notify(['send', 'two', '--retries', '0'], { env });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('code: rate_limited (HTTP 429)');
    expect(run.stderr).toContain('next: Wait Retry-After');
  });

  it('5 when the service cannot be reached, after the retries asked for', async () => {
    const run = await notify(['send', 'hi', '--retries', '0'], {
      env: { NOTIFY_BASE_URL: `http://127.0.0.1:${await freePort()}`, NOTIFY_TOKEN: FOREIGN_TOKEN },
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('code: connection_error');
  });

  it('5 after retrying a failing service, each retry shown as it happens', async () => {
    let attempts = 0;
    const failing = createServer((request, response) => {
      attempts += 1;
      request.resume();
      response.writeHead(503, {
        'content-type': 'application/json',
        'retry-after': '0',
        'x-request-id': `req_down${attempts}`,
      });
      response.end(
        JSON.stringify({
          error: { code: 'service_unavailable', message: 'down' },
          request_id: `req_down${attempts}`,
        }),
      );
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => failing.once('listening', resolve));
    try {
      const { port } = failing.address() as AddressInfo;
      const run = await notify(['send', 'hi'], {
        env: { NOTIFY_BASE_URL: `http://127.0.0.1:${port}`, NOTIFY_TOKEN: FOREIGN_TOKEN },
      });
      expect(run.code).toBe(5);
      expect(attempts).toBe(4);
      expect(run.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual([
        'warning: attempt 1 failed (503 service_unavailable, req_down1); retry 1 of 3 in 0.0 s',
        'warning: attempt 2 failed (503 service_unavailable, req_down2); retry 2 of 3 in 0.0 s',
        'warning: attempt 3 failed (503 service_unavailable, req_down3); retry 3 of 3 in 0.0 s',
      ]);
      expect(run.stderr).toContain('request id: req_down4');
    } finally {
      await new Promise((resolve) => failing.close(resolve));
    }
  });

  it('6 when --wait runs out of time, the last record in the JSON error', async () => {
    const account = await createAccount(undelivered);
    const run = await notify(['send', 'hi', '--wait', '1', '--json'], {
      env: using(undelivered, account.token),
    });
    expect(run.code).toBe(6);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        code: 'wait_timeout',
        message: 'Still accepted after waiting 1 s',
        details: {
          record: { id: expect.stringMatching(/^ntf_/), status: 'accepted', destinations: [], handled: [] },
        },
      },
      next: expect.any(String),
      exit_code: 6,
    });
  });

  it('1 for anything else: a status nobody sent', async () => {
    const account = await createAccount(undelivered);
    const run = await notify(['status', 'ntf_unknown'], { env: using(undelivered, account.token) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('code: not_found (HTTP 404)');
  });

  it('0 with --fail-open whatever went wrong, with a warning that says what', async () => {
    const run = await notify(['send', 'hi', '--fail-open', '--retries', '0', '--quiet'], {
      env: { NOTIFY_BASE_URL: `http://127.0.0.1:${await freePort()}`, NOTIFY_TOKEN: FOREIGN_TOKEN },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^warning: notification not sent: .+\n {2}code: connection_error\n/);
  });

  it('0 with --fail-open for a usage mistake too, and for a field the SDK rejects, each with its warning', async () => {
    const env = { NOTIFY_BASE_URL: `http://127.0.0.1:${await freePort()}`, NOTIFY_TOKEN: FOREIGN_TOKEN };
    const usage = await notify(['ci', '--status', 'Success', '--fail-open'], { env });
    expect(usage).toMatchObject({ code: 0, stdout: '' });
    expect(usage.stderr).toBe(
      'warning: notification not sent: Invalid values:\n  Argument: status, Given: "Success", Choices: "success", "failure", "cancelled"\n  code: usage\n  next: Run `notify --help` for usage\n',
    );
    const json = await notify(['ci', '--status', 'Success', '--fail-open', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'usage' }, exit_code: 0 });
    const refused = await notify(['send', 'hi', '--level', 'loud', '--fail-open'], { env });
    expect(refused.code).toBe(0);
    expect(refused.stderr).toMatch(
      /^warning: notification not sent: level must be .+\n {2}code: invalid_field\n {2}field: level\n/,
    );
    // Without it, the same mistake is exit 2.
    expect((await notify(['ci', '--status', 'Success'], { env })).code).toBe(2);
  });
});
