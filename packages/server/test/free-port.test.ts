import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { freePort } from '@foxbell/test-support/ports';
import { describe, expect, it, vi } from 'vitest';

/** test-support's free ports (ports.ts): where they come from, and that a server can take them. */

/** The first port the system picks by itself: Linux says where; elsewhere none below 32768 does. */
const ephemeralStart = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').then(
  (text) => Number(text.trim().split(/\s+/)[0]),
  () => 32_768,
);

function listenOn(port: number): Promise<void> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

describe('freePort', () => {
  it('hands out ports below the ephemeral range, and above the services of 0-9999', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
  });

  it('hands out a port a server can listen on', async () => {
    for (let i = 0; i < 5; i++) await expect(listenOn(await freePort())).resolves.toBeUndefined();
  });

  it('never hands out the same port twice, even when asked at once', async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
  });

  it("takes this worker's share only, so that files running side by side never pick the same", async () => {
    // The module as two workers of one run load it: each its own copy, with its own pool id.
    const portsOfWorker = async (poolId: string) => {
      vi.resetModules();
      vi.stubEnv('VITEST_POOL_ID', poolId);
      const { freePort: ofWorker } = await import('@foxbell/test-support/ports');
      return Promise.all(Array.from({ length: 20 }, () => ofWorker()));
    };
    const shares = Math.max(2, availableParallelism());
    const [one, two] = [await portsOfWorker('1'), await portsOfWorker('2')];
    vi.unstubAllEnvs();
    expect(new Set(one.map((port) => port % shares))).toEqual(new Set([1 % shares]));
    expect(new Set(two.map((port) => port % shares))).toEqual(new Set([2 % shares]));
  });
});
