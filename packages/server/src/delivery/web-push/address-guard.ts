import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** What a name resolves to: `dns.lookup(name, { all: true })`'s answer. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Addresses no push service has: this machine, private networks, link-local, carrier-grade NAT,
 * multicast and reserved ranges, in IPv4 and IPv6 (IPv4-mapped IPv6 is checked as its IPv4).
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b:1::', 48],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IP in any form `dns.lookup` gives) may be a push service's. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return isPublicAddress(mapped);
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The code of a connection refused because its name resolved to an address that is not public. */
export const PRIVATE_ADDRESS = 'EFOXBELL_PRIVATE_ADDRESS';

/**
 * A `lookup` for the push services' connections: a host name is resolved, and refused when any of
 * its addresses is not public, so an allowed name that resolves (or is made to resolve) to this
 * machine or its network is never connected to. An IP literal is not looked up: it is on the
 * allowlist as written (tests name a local push service so).
 */
export function publicOnlyLookup(resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const answer = (
      error: NodeJS.ErrnoException | null,
      addresses: { address: string; family: number }[],
    ) => {
      if (error) return callback(error, '', 0);
      if (options.all)
        return (callback as unknown as (e: null, all: typeof addresses) => void)(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address ?? '', first?.family ?? 0);
    };
    const literal = isIP(hostname);
    if (literal !== 0) return answer(null, [{ address: hostname, family: literal }]);
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((entry) => !isPublicAddress(entry.address));
        if (addresses.length === 0 || refused) {
          const error: NodeJS.ErrnoException = new Error(
            `${hostname} resolves to ${refused?.address ?? 'nothing'}, not a public address: not connected to`,
          );
          error.code = PRIVATE_ADDRESS;
          return answer(error, []);
        }
        return answer(null, addresses);
      },
      (error: NodeJS.ErrnoException) => answer(error, []),
    );
  };
}
