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

  it('refuses a name when any of its addresses is not public, or it has none', async () => {
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
