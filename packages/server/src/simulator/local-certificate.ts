import { generate } from 'selfsigned';

/**
 * A certificate for this machine's names (localhost, 127.0.0.1, ::1) that is its own authority, so
 * a client trusts it as a CA: for the APNs simulator and tests, never for a real service.
 */
export async function localCertificate(commonName: string): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
