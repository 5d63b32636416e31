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

  // The module as a worker loads it: its own copy, with its own pool id (and run, when two run at once).
  const portsOfWorker = async (poolId: string, run?: string) => {
    vi.resetModules();
    vi.stubEnv('VITEST_POOL_ID', poolId);
    if (run) vi.stubEnv('FOXBELL_TEST_RUN', run);
    try {
      const { freePort: ofWorker } = await import('@foxbell/test-support/ports');
      return await Promise.all(Array.from({ length: 20 }, () => ofWorker()));
    } finally {
      vi.unstubAllEnvs();
    }
  };
  const workerShares = Math.max(2, availableParallelism());
  const remainders = (ports: number[], of: number) => new Set(ports.map((port) => port % of));

  it("takes this worker's share only, so that files running side by side never pick the same", async () => {
    const [one, two] = [await portsOfWorker('1'), await portsOfWorker('2')];
    expect(remainders(one, workerShares)).toEqual(new Set([1 % workerShares]));
    expect(remainders(two, workerShares)).toEqual(new Set([2 % workerShares]));
  });

  it('gives two runs at once (FOXBELL_TEST_RUN) shares of their own for the same pool id', async () => {
    const shares = 2 * workerShares;
    const [first, second] = [await portsOfWorker('1', '1/2'), await portsOfWorker('1', '2/2')];
    expect(remainders(first, shares)).toEqual(new Set([1 % workerShares]));
    expect(remainders(second, shares)).toEqual(new Set([(1 % workerShares) + workerShares]));
    await expect(portsOfWorker('1', '3/2')).rejects.toThrow(
      'FOXBELL_TEST_RUN=3/2: say which run of how many, as 1/2',
    );
  });
});
