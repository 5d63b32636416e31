import { execFile, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { localCertificate } from '../../src/simulator/local-certificate.js';
import { ADMIN, startHttpsServer, startProcess, tempDir } from '../processes.js';
import { apiProviders } from '../providers.js';
import { openTestStore } from '../test-database.js';

const run = promisify(execFile);
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** Descriptors this process holds now. */
const openDescriptors = () => readdirSync('/proc/self/fd').length;

/** A TCP connection to `port` that says nothing, unless told to; resolves once it is open. */
async function silentConnection(port: number): Promise<{ socket: net.Socket; closed: Promise<number> }> {
  const socket = net.connect(port, '127.0.0.1');
  const opened = Date.now();
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, closed };
}

/** The real app on HTTPS, in this process, with a 1 s headers (and so handshake) timeout. */
async function httpsApp() {
  const store = await openTestStore();
  const certificate = await localCertificate('foxbell tls test');
  const tls = { cert: Buffer.from(certificate.cert), key: Buffer.from(certificate.key) };
  const app = buildApp({
    store,
    providers: apiProviders(store),
    tls,
    timeouts: { headersMs: 1000, requestMs: 2000 },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  closing.push(async () => {
    await app.close();
    await store.close();
  });
  return Number(new URL(url).port);
}

describe('connections whose TLS handshake never completes', () => {
  it('are closed by the server within the handshake timeout, and their descriptors come back', async () => {
    const port = await httpsApp();
    const before = openDescriptors();
    // Silent; half-closed by a client that gave up; plain HTTP sent to the HTTPS port (a TLS error).
    const silent = await Promise.all([1, 2, 3, 4, 5].map(() => silentConnection(port)));
    const gaveUp = await silentConnection(port);
    gaveUp.socket.end();
    const plain = await silentConnection(port);
    plain.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const received: Buffer[] = [];
    plain.socket.on('data', (chunk) => received.push(chunk));

    const waited = await Promise.all([...silent, gaveUp, plain].map(({ closed }) => closed));
    // The timeout is 1 s; Node checks for it on a timer of its own: well within 3 s.
    for (const ms of waited) expect(ms).toBeLessThan(3000);
    // No HTTP response was written into a connection that has no TLS session to carry it.
    expect(Buffer.concat(received).toString('latin1')).not.toContain('HTTP/1.1');
    await expect.poll(openDescriptors).toBe(before);
  });

  it('do not hold up a stop: SIGTERM exits 0 at once', async () => {
    const dir = await tempDir();
    const { server } = await startHttpsServer(dir, { commonName: 'foxbell stop' });
    const port = Number(new URL(server.url).port);
    const stalled = await Promise.all([1, 2, 3, 4, 5].map(() => silentConnection(port)));
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    // The handshake timeout is 10 s and the stop's grace 15 s: it waited for neither.
    expect(Date.now() - signalled).toBeLessThan(5000);
    for (const { closed } of stalled) await closed;
    expect(server.stderr()).not.toContain('still in flight');
  }, 30_000);
});

/** What `openssl s_client` prints of a handshake with these options (its input closed at once). */
function sClient(port: number, options: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(
      'openssl',
      ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', ...options],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.on('close', () => resolve(stdout));
  });
}

/** Whether `openssl s_client` completes a handshake with these options. */
async function handshakes(port: number, options: string[]): Promise<boolean> {
  return /Cipher is (?!\(NONE\))/.test(await sClient(port, options));
}

/** The subject of the certificate the port serves now. */
async function servedSubject(port: number): Promise<string> {
  return /^subject=(.*)$/m.exec(await sClient(port, []))?.[1] ?? '';
}

describe('the HTTPS port offers TLS 1.2 and 1.3 with forward secrecy and AEAD ciphers only', () => {
  it('rejects static RSA key exchange, CBC and SHA-1 suites and TLS 1.1, also after a renewal', async () => {
    const dir = await tempDir();
    // An RSA certificate: RSA key exchange suites need one to be offered at all.
    const [cert, key] = [path.join(dir, 'rsa-cert.pem'), path.join(dir, 'rsa-key.pem')];
    await run('openssl', [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost'],
      ...['-keyout', key, '-out', cert],
    ]);
    const server = await startProcess(
      [
        ...['--data', path.join(dir, 'data'), '--admin-key', ADMIN, '--log-level', 'info'],
        ...['--tls-cert', cert, '--tls-key', key],
      ],
      {},
      /listening on (https:\/\/\S+)/,
    );
    const port = Number(new URL(server.url).port);
    const tls12 = (cipher: string) => handshakes(port, ['-tls1_2', '-cipher', cipher]);
    const check = async () => ({
      'AES128-SHA': await tls12('AES128-SHA'),
      'AES256-SHA256': await tls12('AES256-SHA256'),
      'AES128-GCM-SHA256': await tls12('AES128-GCM-SHA256'),
      'ECDHE-RSA-AES128-SHA': await tls12('ECDHE-RSA-AES128-SHA'),
      'ECDHE-RSA-AES256-SHA384': await tls12('ECDHE-RSA-AES256-SHA384'),
      'ECDHE-RSA-AES128-GCM-SHA256': await tls12('ECDHE-RSA-AES128-GCM-SHA256'),
      'ECDHE-RSA-CHACHA20-POLY1305': await tls12('ECDHE-RSA-CHACHA20-POLY1305'),
      'TLS 1.1': await handshakes(port, ['-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0']),
      'TLS 1.3': await handshakes(port, ['-tls1_3']),
    });
    const expected = {
      'AES128-SHA': false,
      'AES256-SHA256': false,
      'AES128-GCM-SHA256': false,
      'ECDHE-RSA-AES128-SHA': false,
      'ECDHE-RSA-AES256-SHA384': false,
      'ECDHE-RSA-AES128-GCM-SHA256': true,
      'ECDHE-RSA-CHACHA20-POLY1305': true,
      'TLS 1.1': false,
      'TLS 1.3': true,
    };
    expect(await check()).toEqual(expected);

    // A renewed certificate is taken on SIGHUP; the policy is not reset to Node's defaults with it.
    await run('openssl', [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=renewed'],
      ...['-keyout', key, '-out', cert],
    ]);
    server.child.kill('SIGHUP');
    await expect.poll(() => server.stderr()).toContain('certificate and key read again');
    await expect.poll(() => servedSubject(port)).toMatch(/CN ?= ?renewed/);
    expect(await check()).toEqual(expected);
  }, 60_000);
});
