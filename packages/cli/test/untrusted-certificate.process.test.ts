import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { localCertificate } from '@foxbell/server/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notify } from './helpers.js';

/**
 * A service whose certificate this machine does not trust: `notify` says so at once, with what to
 * do, instead of retrying three times (7 s of waits) when no retry would trust it. An HTTPS server
 * of the test's own, with a certificate of a CA `notify` is not given, counts the connections made.
 */
let server: Server;
let connections = 0;
beforeAll(async () => {
  server = createServer(await localCertificate('foxbell untrusted test'), (_request, response) =>
    response.end(),
  );
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('a certificate notify does not trust', () => {
  it('is tried once: exit 5 at once, said as such with what to do', async () => {
    const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const run = await notify(['send', 'hi'], {
      env: { NOTIFY_BASE_URL: baseUrl, NOTIFY_TOKEN: `fox_send_${'Zz9'.repeat(10)}zz` },
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: Could not reach ${baseUrl}: the TLS handshake failed \\(its certificate was not trusted\\) \\(\\w+\\)\\n  code: connection_error\\n  next: Its certificate is not signed by a CA this machine trusts: point NODE_EXTRA_CA_CERTS at the CA's PEM file\\n$`,
      ),
    );
    expect(connections).toBe(1);
  });
});
