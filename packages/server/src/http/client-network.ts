import { isIP } from 'node:net';

/**
 * The client a request's address stands for, for the brakes counted per client (unknown
 * credentials, link requests): an IPv4 address as it is (an IPv4-mapped IPv6 one too), and an
 * IPv6 address by its /64. A home or a cloud machine gets a whole /64 and can send from any of
 * its 2^64 addresses: counted one by one, the brakes would not brake.
 */
export function clientNetwork(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  if (isIP(address) !== 6) return address;
  return `${expandedGroups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, each as 1 to 4 lower-case hex digits. */
function expandedGroups(address: string): string[] {
  // A zone (`fe80::1%eth0`) names an interface, not a network.
  const bare = address.split('%')[0] as string;
  const [head = '', tail] = bare.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (`::ffff:1.2.3.4` handled above, `64:ff9b::1.2.3.4` here) is two groups.
  const last = right.at(-1) ?? left.at(-1);
  const fill = 8 - left.length - right.length - (last?.includes('.') ? 1 : 0);
  return [...left, ...Array(Math.max(0, fill)).fill('0'), ...right].map((group) =>
    group.includes('.') ? group : (Number.parseInt(group, 16) || 0).toString(16),
  );
}
