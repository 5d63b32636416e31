import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';

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
   * a ceiling, well above what a loaded machine takes to answer.
   */
  exchange(port: number, bytes: string, waitMs?: number): Promise<string>;
  remove(): void;
}

/** 198.18.0.0/15, the documentation range for benchmarking: 32,768 subnets of four addresses. */
const SUBNETS = 1 << 15;

/** A /30 of 198.18.0.0/15 by its number: its network address. */
export const subnetAddress = (index: number, host = 0) =>
  `198.${18 + (index >> 14)}.${(index >> 6) & 255}.${((index & 63) << 2) + host}`;

/**
 * Makes the other host on a /30 no other interface of this machine holds. Two test files run at
 * once (the two stores' projects) and each makes its own; two on one subnet leave the later one's
 * answers routed into the earlier one's namespace, so it reads nothing (as CI once did, when one of
 * 60 subnets was picked at random). `pickSubnet` is for the test of that.
 */
export function makeForeignHost(pickSubnet = () => randomInt(SUBNETS)): ForeignHost {
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const host = foreignHostOn(pickSubnet());
    if (host) return host;
  }
  throw new Error('no free /30 in 198.18.0.0/15 after 10 picks');
}

function foreignHostOn(subnet: number): ForeignHost | undefined {
  const id = randomBytes(3).toString('hex');
  const ns = `foxbell-${id}`;
  const here = `fxh${id}`;
  const there = `fxt${id}`;
  const serverAddress = subnetAddress(subnet, 1);
  const peerAddress = subnetAddress(subnet, 2);
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe', encoding: 'utf8' });
  /** Takes back what was made: the veth pair (while one end is still here) and the namespace. */
  const undo = () => {
    try {
      ip('link', 'del', here);
    } catch {}
    ip('netns', 'del', ns);
  };
  ip('netns', 'add', ns);
  try {
    ip('link', 'add', here, 'type', 'veth', 'peer', 'name', there);
    ip('addr', 'add', `${serverAddress}/30`, 'dev', here);
    // Checked after taking it, so that of two hosts taking one subnet at once the later always sees
    // the earlier: it gives the subnet up and picks again (both may, and both pick again).
    const holders = ip('-o', '-4', 'addr', 'show', 'to', `${subnetAddress(subnet)}/30`)
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.includes(` ${here} `));
    if (holders.length > 0) {
      undo();
      return undefined;
    }
    ip('link', 'set', there, 'netns', ns);
    ip('link', 'set', here, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${peerAddress}/30`, 'dev', there);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', there, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    undo();
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
