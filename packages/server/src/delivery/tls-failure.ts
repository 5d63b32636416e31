/**
 * Whether a connection failed on the push service's certificate or its TLS handshake, and the
 * error's code for the log. Another attempt would meet the same certificate: such a push fails
 * for good at once (reason `tls`), so its sender hears of it without waiting for every retry, and
 * the operator reads the code (`SELF_SIGNED_CERT_IN_CHAIN`, `CERT_HAS_EXPIRED`,
 * `ERR_TLS_CERT_ALTNAME_INVALID`, `ERR_SSL_WRONG_VERSION_NUMBER`…).
 */

/** OpenSSL's certificate verification errors, by the codes Node gives them. */
const CERTIFICATE_ERRORS = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

/** The TLS error's code, of an error or any error it wraps (undici wraps a connection's); else undefined. */
export function tlsFailureOf(error: unknown): string | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth += 1) {
    const { code } = at as NodeJS.ErrnoException;
    // A handshake that took too long is no answer, worth another attempt like any other.
    if (typeof code !== 'string' || code === 'ERR_TLS_HANDSHAKE_TIMEOUT') continue;
    if (CERTIFICATE_ERRORS.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) {
      return code;
    }
  }
  return undefined;
}
