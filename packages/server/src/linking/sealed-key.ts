import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A device key kept for its app until the app's first poll after approval, sealed with the
 * request's poll secret (AES-256-GCM, its key derived from the secret by HKDF). The database holds
 * the secret's hash only, so what it keeps cannot be opened by reading it: only the app that holds
 * the secret can take its key.
 */
const INFO = 'foxbell link device key';

function keyOf(pollSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', pollSecret, Buffer.alloc(0), INFO, 32));
}

export function sealDeviceKey(deviceKey: string, pollSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(pollSecret), iv);
  const sealed = Buffer.concat([cipher.update(deviceKey, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The device key, or undefined when `pollSecret` is not the one it was sealed with. */
export function openDeviceKey(sealed: string, pollSecret: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(pollSecret), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
