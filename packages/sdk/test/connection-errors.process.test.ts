import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { freePort } from '@foxbell/test-support/ports';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, Foxbell } from '../src/index.js';
import { TOKEN } from './helpers.js';

/** Real sockets here (no msw): what fetch itself reports when a connection fails. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listening<T extends Server>(server: T): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failureOf(baseUrl: string): Promise<ConnectionError> {
  const error = await new Foxbell({ token: TOKEN, baseUrl, maxRetries: 0 })
    .send({ message: 'hi' })
    .catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ConnectionError);
  expect((error as ConnectionError).message).not.toContain(TOKEN);
  return error as ConnectionError;
}

/** A certificate no client trusts: it signs itself and no CA is given. */
async function selfSignedPair(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
  });
  return { cert: pems.cert, key: pems.private };
}

describe('a connection that fails names the address and the reason, in words and as data', () => {
  it('refused', async () => {
    // A port nothing listens on (below the system's range: no other test's server takes it meanwhile).
    const address = `127.0.0.1:${await freePort()}`;
    const error = await failureOf(`http://${address}`);
    expect(error.message).toBe(`Could not reach http://${address}: connection refused (ECONNREFUSED)`);
    expect([error.reason, error.baseUrl]).toEqual(['refused', `http://${address}`]);
  });

  it('reset by the server', async () => {
    const address = await listening(createServer((socket) => socket.on('data', () => socket.destroy())));
    const error = await failureOf(`http://${address}`);
    expect(error.message).toMatch(
      new RegExp(`^Could not reach http://${address}: the connection was reset( \\(\\w+\\))?$`),
    );
    expect(error.reason).toBe('reset');
  });

  it('a certificate it does not trust: tried once, as no retry would trust it', async () => {
    const server = createHttpsServer(await selfSignedPair(), (_request, response) => response.end());
    let connections = 0;
    server.on('connection', () => {
      connections += 1;
    });
    const address = await listening(server);
    const error = await new Foxbell({ token: TOKEN, baseUrl: `https://${address}` })
      .send({ message: 'hi' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConnectionError);
    expect([(error as ConnectionError).reason, (error as ConnectionError).attempts]).toEqual([
      'tls',
      [{ failure: 'network' }],
    ]);
    expect(connections).toBe(1);
  });

  it('reset during the TLS handshake: a reset, retried, whatever its message says of TLS', async () => {
    const address = await listening(createServer((socket) => socket.on('data', () => socket.destroy())));
    const error = await new Foxbell({ token: TOKEN, baseUrl: `https://${address}`, maxRetries: 1 })
      .send({ message: 'hi' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toBe(
      `Could not reach https://${address}: the connection was reset (ECONNRESET)`,
    );
    expect((error as ConnectionError).attempts).toHaveLength(2);
  });

  it('a certificate it does not trust', async () => {
    const address = await listening(
      createHttpsServer(await selfSignedPair(), (_request, response) => response.end()),
    );
    const error = await failureOf(`https://${address}`);
    expect(error.message).toMatch(
      new RegExp(
        `^Could not reach https://${address}: the TLS handshake failed \\(its certificate was not trusted\\) \\(\\w+\\)$`,
      ),
    );
    expect([error.reason, error.baseUrl]).toEqual(['tls', `https://${address}`]);
  });

  it('a host name that does not resolve', async () => {
    const error = await failureOf('https://foxbell.invalid');
    expect(error.message).toMatch(
      /^Could not reach https:\/\/foxbell\.invalid: its host name did not resolve \(DNS\) \((ENOTFOUND|EAI_AGAIN)\)$/,
    );
    expect([error.reason, error.baseUrl]).toEqual(['dns', 'https://foxbell.invalid']);
  });

  it("a failure it does not recognise: the runtime's words, and no reason", async () => {
    const fetch = () => Promise.reject(new TypeError('the fetch polyfill gave up'));
    const error = await new Foxbell({
      token: TOKEN,
      baseUrl: 'https://foxbell.example.com',
      maxRetries: 0,
      fetch,
    })
      .send({ message: 'hi' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toBe(
      'Could not reach https://foxbell.example.com: the fetch polyfill gave up',
    );
    expect((error as ConnectionError).reason).toBeUndefined();
  });
});
