import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { localCertificate } from '../../src/simulator/local-certificate.js';
import { ADMIN, runScript, runToExit, startHttpsServer, tempDir } from '../processes.js';

const SERVER_PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

/** The name on the certificate a new TLS connection is given. */
function servedName(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false },
      () => {
        resolve(String(socket.getPeerCertificate().subject.CN));
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}

const run = runScript;

describe('HTTPS on the API port', () => {
  it('serves the SDK over TLS it trusts, and takes a renewed certificate on SIGHUP', async () => {
    const dir = await tempDir();
    const {
      server,
      certificate: first,
      files: { cert: certFile, key: keyFile, ca: firstCa },
    } = await startHttpsServer(dir, { commonName: 'foxbell first', logLevel: 'info' });
    const secondCa = path.join(dir, 'second-ca.pem');
    const port = Number(new URL(server.url).port);
    const baseUrl = `https://localhost:${port}`;
    // The process's own fetch does not trust the test CA: the account is made through TLS without checks.
    const insecure = { NODE_TLS_REJECT_UNAUTHORIZED: '0' };
    const account = await run(
      path.join(SERVER_PACKAGE, 'bin', 'foxbell-server.js'),
      ['admin', 'account', 'create', '--json'],
      {
        ...insecure,
        FOXBELL_BASE_URL: baseUrl,
        FOXBELL_ADMIN_KEY: ADMIN,
      },
    );
    const key = JSON.parse(account.stdout).key as string;
    await run(
      path.join(SERVER_PACKAGE, 'bin', 'foxbell-server.js'),
      ['admin', 'device', 'add', '--name', 'Phone', '--platform', 'ios', '--push-token', 'cd'.repeat(32)],
      {
        ...insecure,
        FOXBELL_BASE_URL: baseUrl,
        FOXBELL_ACCOUNT_KEY: key,
      },
    );
    const token = JSON.parse(
      (
        await run(
          path.join(SERVER_PACKAGE, 'bin', 'foxbell-server.js'),
          ['admin', 'token', 'create', '--json'],
          { ...insecure, FOXBELL_BASE_URL: baseUrl, FOXBELL_ACCOUNT_KEY: key },
        )
      ).stdout,
    ).token as string;
    // The SDK, as an app would use it: trusting the CA by NODE_EXTRA_CA_CERTS, and rejecting the
    // connection without it (notify's own suite checks the same of notify).
    const sdkSend = (message: string, ca: string | undefined) =>
      run(
        '--input-type=module',
        [
          '-e',
          `import { Foxbell } from '@foxbell/sdk';
           const client = new Foxbell({ baseUrl: '${baseUrl}', token: '${token}', maxRetries: 0 });
           console.log(await client.send({ message: '${message}' }).then((sent) => sent.id, (error) => error.code));`,
        ],
        ca ? { NODE_EXTRA_CA_CERTS: ca } : {},
        SERVER_PACKAGE,
      );
    const sdk = await sdkSend('over TLS', firstCa);
    expect([sdk.code, sdk.stderr, sdk.stdout]).toEqual([0, '', expect.stringMatching(/^ntf_\w+\n$/)]);
    expect((await sdkSend('over TLS', undefined)).stdout).toBe('connection_error\n');

    // Renewal: new files, SIGHUP; the next connection gets the new certificate.
    const second = await localCertificate('foxbell second');
    await Promise.all([
      writeFile(certFile, second.cert),
      writeFile(keyFile, second.key),
      writeFile(secondCa, second.cert),
    ]);
    expect(await servedName(port)).toBe('foxbell first');
    server.child.kill('SIGHUP');
    await expect.poll(() => servedName(port)).toBe('foxbell second');
    expect((await sdkSend('renewed', secondCa)).stdout).toMatch(/^ntf_\w+\n$/);
    // A key that does not match: the certificate in use stays, and the log says why.
    await writeFile(keyFile, first.key);
    server.child.kill('SIGHUP');
    await expect
      .poll(() => server.stderr())
      .toContain('reading the certificate or key failed; the ones in use stay');
    expect(await servedName(port)).toBe('foxbell second');
    expect(server.stderr()).not.toContain('PRIVATE KEY');
  }, 30_000);

  it('refuses to start without both files, or with files it cannot use, saying which', async () => {
    const dir = await tempDir();
    const alone = await runToExit(['--data', dir, '--tls-cert', path.join(dir, 'cert.pem')]);
    expect([alone.code, alone.stderr]).toEqual([
      2,
      expect.stringContaining('--tls-cert (FOXBELL_TLS_CERT) and --tls-key (FOXBELL_TLS_KEY) go together'),
    ]);
    const missing = await runToExit([
      '--data',
      dir,
      '--tls-cert',
      path.join(dir, 'none.pem'),
      '--tls-key',
      path.join(dir, 'none.key'),
    ]);
    expect([missing.code, missing.stderr]).toEqual([
      1,
      expect.stringMatching(
        /^foxbell-server: cannot use --tls-cert .*none\.pem with --tls-key .*none\.key: ENOENT\n$/,
      ),
    ]);
  });
});
