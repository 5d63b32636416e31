import { canonicalLinkCode, LINK_CODE_ALPHABET } from '@foxbell/sdk/server-contract';
import { describe, expect, it } from 'vitest';
import { newLinkCode } from '../../src/linking/codes.js';
import { openDeviceKey, sealDeviceKey } from '../../src/linking/sealed-key.js';

describe('link codes and the device key sealed for its app', () => {
  it('makes codes of the contract, XXXX-XXXX from its letters, read back as they were made', () => {
    const codes = new Set(Array.from({ length: 500 }, newLinkCode));
    expect(codes.size).toBe(500);
    for (const code of codes) {
      expect(code).toMatch(/^[^-]{4}-[^-]{4}$/);
      for (const letter of code.replace('-', '')) expect(LINK_CODE_ALPHABET).toContain(letter);
      expect(canonicalLinkCode(code.toLowerCase().replace('-', ' '))).toBe(canonicalLinkCode(code));
    }
  });

  it('opens a sealed key with its poll secret only, and never the same sealing twice', () => {
    const key = 'fox_dev_abcdefghijklmnopqrstuvwxyz012345';
    const secret = 'fox_poll_0123456789abcdefghijklmnopqrstuv';
    const sealed = sealDeviceKey(key, secret);
    expect(sealed).not.toContain(key);
    expect(sealDeviceKey(key, secret)).not.toBe(sealed);
    expect(openDeviceKey(sealed, secret)).toBe(key);
    expect(openDeviceKey(sealed, `${secret.slice(0, -1)}w`)).toBeUndefined();
    // Tampered with, or cut short: rejected, not opened wrong.
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    expect(openDeviceKey(bytes.toString('base64url'), secret)).toBeUndefined();
    expect(openDeviceKey(sealed.slice(0, 10), secret)).toBeUndefined();
  });
});
