import * as childProcess from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { installFastTierGuard } from '@foxbell/test-support/fast-tier';
import { afterEach, describe, expect, it } from 'vitest';

/** The fast tier's guard (vitest.config.ts), on its own: what it rejects, what it lets through. */
let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});

describe("the fast tier's guard", () => {
  it('rejects every way to start a process, named imports included, and puts them back', () => {
    const before = childProcess.spawn;
    uninstall = installFastTierGuard();
    for (const start of [
      () => childProcess.spawn(process.execPath, ['-e', '']),
      () => childProcess.execFileSync(process.execPath, ['-e', '']),
      () => childProcess.exec('true'),
      () => childProcess.fork('nothing.js'),
    ]) {
      expect(start).toThrow(/fast tier started a process .*\*\.process\.test\.ts/);
    }
    uninstall();
    uninstall = undefined;
    expect(childProcess.spawn).toBe(before);
  });

  it('rejects a socket beyond loopback, and lets one to this machine through', async () => {
    const server = net.createServer((socket) => socket.end('hi'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as net.AddressInfo;
    uninstall = installFastTierGuard();
    try {
      expect(() => net.connect({ host: '192.0.2.10', port: 80 })).toThrow(
        /connected to 192\.0\.2\.10, beyond this machine/,
      );
      expect(() => net.connect(443, 'example.com')).toThrow(/connected to example\.com/);
      const local = net.connect({ host: '127.0.0.1', port });
      const [data] = await once(local, 'data');
      expect(String(data)).toBe('hi');
      local.destroy();
      // A name a test's own resolver returns: through when it says loopback, rejected otherwise.
      const resolvedTo =
        (address: string): net.LookupFunction =>
        (_host, options, callback) =>
          options.all
            ? (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
                { address, family: 4 },
              ])
            : callback(null, address, 4);
      const named = net.connect({ host: 'push.test', port, lookup: resolvedTo('127.0.0.1') });
      expect(String((await once(named, 'data'))[0])).toBe('hi');
      named.destroy();
      const elsewhere = net.connect({ host: 'push.test', port, lookup: resolvedTo('10.0.0.7') });
      const [error] = await once(elsewhere, 'error');
      expect((error as Error).message).toMatch(/connected to push\.test, beyond this machine/);
    } finally {
      server.close();
    }
  });
});
