import { describe, expect, it } from 'vitest';
import { clientNetwork } from '../../src/http/client-network.js';

describe('clientNetwork: the client an address stands for in the per-client brakes', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:198.51.100.2', '198.51.100.2'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
  ])('%s is %s', (address, network) => {
    expect(clientNetwork(address)).toBe(network);
  });
});
