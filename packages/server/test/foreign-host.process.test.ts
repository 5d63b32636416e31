import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type ForeignHost, makeForeignHost, subnetAddress } from './foreign-host.js';

/** The other host of the tests that need one (foreign-host.ts): each on a subnet of its own. */
const made: ForeignHost[] = [];
let server: Server | undefined;
afterEach(async () => {
  for (const host of made.splice(0)) host.remove();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function listening(): Promise<number> {
  server = createServer((_request, response) => response.end('hello'));
  await new Promise<void>((resolve) => server?.listen(0, '0.0.0.0', resolve));
  return (server.address() as { port: number }).port;
}

const GET = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

describe('another host on the network', () => {
  it('numbers the subnets of 198.18.0.0/15 from first to last', () => {
    expect(subnetAddress(0)).toBe('198.18.0.0');
    expect(subnetAddress(6, 1)).toBe('198.18.0.25');
    expect(subnetAddress(64, 2)).toBe('198.18.1.2');
    expect(subnetAddress((1 << 15) - 1, 2)).toBe('198.19.255.254');
  });

  it('moves to another subnet when one it picks is held, and both hosts are answered', async () => {
    const port = await listening();
    const first = makeForeignHost(() => 5);
    made.push(first);
    const picks = [5, 6];
    const second = makeForeignHost(() => picks.shift() as number);
    made.push(second);
    expect(picks).toEqual([]);
    expect([first.serverAddress, first.peerAddress]).toEqual(['198.18.0.21', '198.18.0.22']);
    expect([second.serverAddress, second.peerAddress]).toEqual(['198.18.0.25', '198.18.0.26']);
    for (const host of [first, second]) {
      const answer = await host.exchange(port, GET);
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      expect(answer.endsWith('\r\n\r\nhello')).toBe(true);
    }
  });

  it('gives up, saying so, when every subnet it picks is held', () => {
    made.push(makeForeignHost(() => 7));
    expect(() => made.push(makeForeignHost(() => 7))).toThrow('no free /30 in 198.18.0.0/15 after 10 picks');
  });
});
