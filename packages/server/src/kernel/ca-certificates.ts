import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, getCACertificates, type SecureContext } from 'node:tls';

/**
 * Certificates an operator asks the server to trust besides the usual ones (`--web-push-ca`,
 * `--apns-ca`): a push service or simulator behind a private CA.
 */

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM file, each checked, or why the file cannot be used. */
export function readCaFile(file: string): { pem: string } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}` };
  }
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) return { problem: `${file} holds no PEM certificate` };
  for (const [index, certificate] of certificates.entries()) {
    try {
      new X509Certificate(certificate);
    } catch {
      return { problem: `certificate ${index + 1} of ${file} cannot be read` };
    }
  }
  return { pem: certificates.join('\n') };
}

/**
 * A TLS context that trusts the certificates of `pem` as well as what Node trusts by default. Node's `ca`
 * option replaces its trust store rather than adding to it: given a private CA alone, a
 * connection would trust no public CA, nor NODE_EXTRA_CA_CERTS, nor the system's store under
 * `--use-system-ca`. Made once: a context per connection would parse every CA again.
 */
export function trustingAlso(pem: string): SecureContext {
  return createSecureContext({ ca: [...getCACertificates('default'), pem] });
}
