import { describe, expect, it } from 'vitest';
import {
  isLocalHost,
  isLocalRequest,
  isLoopbackAddress,
  requestedHost,
} from '../../src/kernel/local-only.js';

describe('what only this machine may see', () => {
  it('knows a loopback peer in every form, and nothing else', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopbackAddress(address), address).toBe(true);
    }
    for (const address of ['10.0.0.1', '::ffff:10.0.0.1', '192.168.1.2', '2001:db8::1', undefined]) {
      expect(isLoopbackAddress(address), String(address)).toBe(false);
    }
  });

  it('takes a Host that names this machine at the port the request came to, and no other name', () => {
    expect(isLocalHost('localhost:8787', 8787)).toBe(true);
    expect(isLocalHost('127.0.0.1:8787', 8787)).toBe(true);
    expect(isLocalHost('[::1]:8787', 8787)).toBe(true);
    expect(isLocalHost('LOCALHOST', 80)).toBe(true);
    // DNS rebinding: another site's name, rebound to 127.0.0.1.
    expect(isLocalHost('attacker.example:8787', 8787)).toBe(false);
    expect(isLocalHost('localhost:8788', 8787)).toBe(false);
    expect(isLocalHost(undefined, 8787)).toBe(false);
  });

  it('reads the host of an absolute-form target over Host, as RFC 9112 says', () => {
    expect(requestedHost('/dev/session', 'localhost:1')).toBe('localhost:1');
    expect(requestedHost('http://attacker.example/dev/session', 'localhost:1')).toBe('attacker.example');
    expect(requestedHost('http://[bad', 'localhost:1')).toBeUndefined();
  });

  it('lets a request through only from this machine, naming this machine', () => {
    const request = (remoteAddress: string, url: string, host: string) => ({
      socket: { remoteAddress, localPort: 8787 },
      raw: { url },
      headers: { host },
    });
    expect(isLocalRequest(request('127.0.0.1', '/dev/session', 'localhost:8787'))).toBe(true);
    expect(isLocalRequest(request('10.0.0.2', '/dev/session', 'localhost:8787'))).toBe(false);
    expect(isLocalRequest(request('127.0.0.1', '/dev/session', 'rebound.example:8787'))).toBe(false);
    expect(isLocalRequest(request('127.0.0.1', 'http://rebound.example/dev', 'localhost:8787'))).toBe(false);
  });
});
