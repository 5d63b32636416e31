import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net, { isIP } from 'node:net';

/**
 * The fast tier's rule, enforced rather than trusted to file names: a test there starts no process
 * and opens no socket beyond this machine's loopback. A test that does belongs in `*.process.*`.
 * `installFastTierGuard` replaces Node's process starters and the socket's connect with ones that
 * reject, and returns what puts them back.
 */

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/** Loopback: all of 127.0.0.0/8, ::1 (and IPv4-mapped), `localhost`, and Unix sockets. */
function isLoopback(host: string | undefined): boolean {
  if (host === undefined || host === '' || host === 'localhost') return true;
  const v4 = host.startsWith('::ffff:') ? host.slice(7) : host;
  return v4.startsWith('127.') || host === '::1' || host === '[::1]';
}

type Lookup = (
  hostname: string,
  options: object,
  callback: (error: Error | null, address: string | { address: string }[], family?: number) => void,
) => void;

/** A socket's options, wherever `connect` was given them (Node passes its own `[options, cb]` too). */
function optionsOf(args: unknown[]): { host?: string; path?: string; lookup?: Lookup } | undefined {
  const [first] = args;
  if (Array.isArray(first)) return optionsOf(first);
  return typeof first === 'object' && first !== null ? (first as { host?: string }) : undefined;
}

/**
 * `connect`'s arguments as the guard lets them through: to a loopback address, a Unix socket, or a
 * name whose own `lookup` (a test's resolver) returns loopback; anything else rejected.
 */
function guarded(args: unknown[]): unknown[] {
  const options = optionsOf(args);
  const host = options
    ? options.path !== undefined
      ? undefined
      : options.host
    : typeof args[1] === 'string'
      ? args[1]
      : undefined;
  if (
    isLoopback(host) ||
    (options === undefined && typeof args[0] === 'string' && Number.isNaN(Number(args[0])))
  ) {
    return args;
  }
  const refused = () =>
    new Error(
      `a test of the fast tier connected to ${host}, beyond this machine: name its file *.process.test.ts`,
    );
  if (isIP(host ?? '') !== 0 || options?.lookup === undefined) throw refused();
  // A name a test's resolver returns: let it connect only where the resolver says loopback.
  const inner = options.lookup;
  const lookup: Lookup = (hostname, lookupOptions, callback) =>
    inner(hostname, lookupOptions, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((one) => one.address) : [address];
      if (addresses.some((one) => !isLoopback(one))) return callback(refused(), address, family);
      callback(null, address, family);
    });
  // In place: Node marks the arrays it normalized itself, and a copy would lose the mark.
  options.lookup = lookup;
  return args;
}

export function installFastTierGuard(): () => void {
  const kept = Object.fromEntries(STARTERS.map((name) => [name, childProcess[name]]));
  for (const name of STARTERS) {
    Object.assign(childProcess, {
      [name]: () => {
        throw new Error(
          `a test of the fast tier started a process (child_process.${name}): name its file *.process.test.ts`,
        );
      },
    });
  }
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    return (connect as (...a: unknown[]) => net.Socket).apply(this, guarded(args));
  } as typeof connect;
  // ESM's named imports of a builtin (`import { spawn } from 'node:child_process'`) follow these.
  syncBuiltinESMExports();
  return () => {
    Object.assign(childProcess, kept);
    net.Socket.prototype.connect = connect;
    syncBuiltinESMExports();
  };
}
