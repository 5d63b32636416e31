import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What a name resolves to: `dns.lookup(name, { all: true })`'s result. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Addresses no push service has: this machine, private networks, link-local, carrier-grade NAT,
 * multicast, documentation, benchmarking and other reserved ranges, in IPv4 and IPv6. ipaddr.js
 * names every special-purpose range; a push service's address is in none of them ("unicast").
 */
const isUnicast = (address: ipaddr.IPv4 | ipaddr.IPv6): boolean => address.range() === 'unicast';

/** The networks whose addresses end with an IPv4 one, which is where a connection to them goes. */
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 address an IPv6 one carries, for the ways a host may really reach an IPv4 address
 * through one: IPv4-mapped and IPv4-translated (::ffff:0:0/96, ::ffff:0:0:0/96), NAT64's
 * well-known prefix (64:ff9b::/96, common on IPv6-only hosts in clouds), 6to4 (2002::/16, the 32
 * bits after the prefix) and IPv4-compatible (::/96, tunnelled by a sit device). Teredo
 * (2001::/32) is not here: it is a host behind a NAT, reached through a relay, never a push
 * service, and ipaddr.js names its range.
 */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const [, second = 0, third = 0, , , , high = 0, low = 0] = address.parts;
  const range = address.range();
  if (range === '6to4') return ipv4Of(second, third);
  if (
    range === 'ipv4Mapped' ||
    range === 'rfc6145' ||
    address.match(NAT64) ||
    address.match(IPV4_COMPATIBLE)
  ) {
    return ipv4Of(high, low);
  }
  return undefined;
}

/** Whether `address` (an IP in any form `dns.lookup` gives) may be a push service's. */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv4) return isUnicast(parsed);
  return isUnicast(carriedIPv4(parsed) ?? parsed);
}

/** The code of a connection refused because its name resolved to an address that is not public. */
export const PRIVATE_ADDRESS = 'EFOXBELL_PRIVATE_ADDRESS';

/**
 * A `lookup` for the push services' connections: a host name is resolved, and rejected when any of
 * its addresses is not public, so an allowed name that resolves (or is made to resolve) to this
 * machine or its network is never connected to. An IP literal is not looked up: it is on the
 * allowlist as written (tests name a local push service so).
 */
export function publicOnlyLookup(resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const done = (error: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => {
      if (error) return callback(error, '', 0);
      if (options.all)
        return (callback as unknown as (e: null, all: typeof addresses) => void)(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address ?? '', first?.family ?? 0);
    };
    const literal = isIP(hostname);
    if (literal !== 0) return done(null, [{ address: hostname, family: literal }]);
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((entry) => !isPublicAddress(entry.address));
        if (addresses.length === 0 || refused) {
          const error: NodeJS.ErrnoException = new Error(
            `${hostname} resolves to ${refused?.address ?? 'nothing'}, not a public address: not connected to`,
          );
          error.code = PRIVATE_ADDRESS;
          return done(error, []);
        }
        return done(null, addresses);
      },
      (error: NodeJS.ErrnoException) => done(error, []),
    );
  };
}
