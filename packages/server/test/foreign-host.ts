import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * Another machine on the network, as the server sees it: a network namespace of this test run
 * joined to this one by a veth pair. The server listening on 0.0.0.0 is reached at `serverAddress`
 * and sees the peer `peerAddress`, which is not loopback. Made with iproute2 (root, as CI runs).
 */
export interface ForeignHost {
  serverAddress: string;
  peerAddress: string;
  /**
   * Sends `bytes` to serverAddress:port from the other host; resolves with what came back until the
   * server closed or `waitMs` passed. Every caller's server closes (or refuses), so the wait is only
   * a ceiling: it once was 1 s, and a loaded CI machine answered later than that (or the first SYN
   * over a fresh veth pair was lost and resent after TCP's 1 s), which read as an empty answer.
   */
  exchange(port: number, bytes: string, waitMs?: number): Promise<string>;
  remove(): void;
}

export function makeForeignHost(): ForeignHost {
  const id = randomBytes(3).toString('hex');
  const ns = `foxbell-${id}`;
  const here = `fxh${id}`;
  const there = `fxt${id}`;
  // A /30 of the documentation range 198.18.0.0/15 (benchmarking), picked per run.
  const octet = 4 * (Number.parseInt(id.slice(0, 2), 16) % 60);
  const serverAddress = `198.18.${octet >> 8}.${(octet & 255) + 1}`;
  const peerAddress = `198.18.${octet >> 8}.${(octet & 255) + 2}`;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  ip('netns', 'add', ns);
  try {
    ip('link', 'add', here, 'type', 'veth', 'peer', 'name', there);
    ip('link', 'set', there, 'netns', ns);
    ip('addr', 'add', `${serverAddress}/30`, 'dev', here);
    ip('link', 'set', here, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${peerAddress}/30`, 'dev', there);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', there, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    ip('netns', 'del', ns);
    throw error;
  }
  const client = `
    const socket = require('node:net').connect(Number(process.argv[2]), process.argv[1]);
    const chunks = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => { process.stdout.write('ERROR ' + error.code); process.exit(0); });
    const done = () => { process.stdout.write(Buffer.concat(chunks)); process.exit(0); };
    socket.on('close', done);
    setTimeout(done, Number(process.argv[4]));
    socket.write(Buffer.from(process.argv[3], 'base64'));
  `;
  return {
    serverAddress,
    peerAddress,
    exchange: (port, bytes, waitMs = 15_000) =>
      new Promise((resolve, reject) => {
        const child = spawn(
          'ip',
          [
            'netns',
            'exec',
            ns,
            process.execPath,
            '-e',
            client,
            serverAddress,
            String(port),
            Buffer.from(bytes).toString('base64'),
            String(waitMs),
          ],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
        });
        child.on('error', reject);
        child.on('exit', () => resolve(out));
      }),
    remove: () => {
      // Deleting the namespace deletes the veth pair with it.
      try {
        ip('netns', 'del', ns);
      } catch {}
    },
  };
}
