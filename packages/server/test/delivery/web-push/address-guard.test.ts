import { describe, expect, it } from 'vitest';
import {
  isPublicAddress,
  PRIVATE_ADDRESS,
  publicOnlyLookup,
} from '../../../src/delivery/web-push/address-guard.js';

describe('isPublicAddress: where no push service is', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '10.0.0.1',
    '100.64.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::FFFF:10.0.0.1',
    'not an address',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '17.188.128.1',
    '142.250.74.10',
    '172.32.0.1',
    '100.128.0.1',
    '2620:149:a44::1',
    '::ffff:17.0.0.1',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

/**
 * Addresses that carry an IPv4 address inside, and the reserved ranges: each range at its edges,
 * and the public address just outside it where there is one.
 */
describe('isPublicAddress: an IPv4 address inside an IPv6 one, and the reserved ranges', () => {
  it.each([
    // NAT64 (64:ff9b::/96): 64:ff9b::a00:1 reaches 10.0.0.1 through a NAT64 gateway.
    ['64:ff9b::a00:1', false],
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::192.168.1.1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::c000:201', false],
    ['64:ff9b::', false],
    ['64:ff9b::808:808', true],
    ['64:ff9b::11bc:8001', true],
    // Local-use NAT64 (64:ff9b:1::/48): the operator's own translator, whatever is inside.
    ['64:ff9b:1::808:808', false],
    // 6to4 (2002::/16): the IPv4 address is the 32 bits after the prefix.
    ['2002:a00:1::1', false],
    ['2002:7f00:1::', false],
    ['2002:c0a8:101::1', false],
    ['2002:cb00:71ff::1', false],
    ['2002:808:808::1', true],
    // IPv4-compatible (::/96).
    ['::a00:1', false],
    ['::127.0.0.1', false],
    ['::a9fe:a9fe', false],
    ['::808:808', true],
    // IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96).
    ['::ffff:a00:1', false],
    ['::ffff:0:a00:1', false],
    ['::ffff:0:7f00:1', false],
    ['::ffff:0:808:808', true],
    ['::ffff:198.51.100.7', false],
    // Teredo (2001::/32): a host behind a NAT, through a relay; never a push service.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['2001::', false],
    ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', false],
    // The rest of 2001::/23 is the IETF's (benchmarking, ORCHID, ...); 2001:200:: is a network's.
    ['2001:2::1', false],
    ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['2001:200::1', true],
    // Discard-only (100::/64).
    ['100::', false],
    ['100::ffff:ffff:ffff:ffff', false],
    // Documentation (2001:db8::/32), and the network just after it.
    ['2001:db8::1', false],
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['2001:db9::1', true],
    // Site-local, deprecated (fec0::/10).
    ['fec0::1', false],
    ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
    // The IPv4 documentation ranges (TEST-NET-1, -2, -3), and the addresses on each side.
    ['192.0.2.0', false],
    ['192.0.2.255', false],
    ['192.0.1.255', true],
    ['192.0.3.0', true],
    ['198.51.100.0', false],
    ['198.51.100.255', false],
    ['198.51.99.255', true],
    ['198.51.101.0', true],
    ['203.0.113.0', false],
    ['203.0.113.255', false],
    ['203.0.112.255', true],
    ['203.0.114.0', true],
  ])('%s public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('publicOnlyLookup', () => {
  const lookupWith = (addresses: { address: string; family: number }[], all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; result: unknown }>((resolve) => {
      publicOnlyLookup(async () => addresses)('push.example.net', { all }, (error, result) =>
        resolve({ error, result }),
      );
    });

  it('hands on the addresses of a name that resolves only to public ones, one or all', async () => {
    const addresses = [
      { address: '17.188.128.1', family: 4 },
      { address: '2620:149:a44::1', family: 6 },
    ];
    expect(await lookupWith(addresses, true)).toEqual({ error: null, result: addresses });
    expect(await lookupWith(addresses, false)).toEqual({ error: null, result: '17.188.128.1' });
  });

  it('rejects a name when any of its addresses is not public, or it has none', async () => {
    for (const addresses of [
      [
        { address: '17.188.128.1', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      [],
    ]) {
      const { error } = await lookupWith(addresses, true);
      expect(error?.code).toBe(PRIVATE_ADDRESS);
    }
  });

  it('does not look up an IP literal: the allowlist named it as written', async () => {
    const result = await new Promise((resolve) => {
      publicOnlyLookup(async () => {
        throw new Error('looked up');
      })('127.0.0.1', { all: true }, (error, all) => resolve({ error, all }));
    });
    expect(result).toEqual({ error: null, all: [{ address: '127.0.0.1', family: 4 }] });
  });
});
