/**
 * What the HTTPS port offers: TLS 1.2 and 1.3, with forward secrecy and an AEAD cipher only
 * (ECDHE key exchange; AES-GCM or ChaCha20-Poly1305), as Mozilla's "intermediate" profile, less
 * its DHE suites. Given both when the server starts and when a renewed certificate is taken on
 * SIGHUP: Node's `setSecureContext` resets every option it is not given to OpenSSL's defaults.
 */
export const TLS_POLICY = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
  // With only strong suites on offer, the client's preference picks among them (it knows whether
  // it has AES hardware); Node's default would impose ours.
  honorCipherOrder: false,
} as const;
