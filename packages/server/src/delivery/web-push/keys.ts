import type { PushAddress } from '../../model/devices.js';
import { WEB_PUSH } from './entry.js';

/** What a Web Push subscription adds to its endpoint (RFC 8291), and where its app lives. */
export interface WebPushKeys {
  /** The browser's P-256 public key, base64url (65 bytes, uncompressed). */
  p256dh: string;
  /** The authentication secret, base64url (16 bytes). */
  auth: string;
  /** The web app's address, for the notification to open (Declarative Web Push); null if unknown. */
  appUrl: string | null;
}

/** A Web Push address's keys, as its registration kept them; undefined for another provider's. */
export function webPushKeysOf(address: PushAddress): WebPushKeys | undefined {
  const data = address.data;
  if (address.provider !== WEB_PUSH || data === null) return undefined;
  const { p256dh, auth, appUrl } = data;
  if (typeof p256dh !== 'string' || typeof auth !== 'string') return undefined;
  return { p256dh, auth, appUrl: typeof appUrl === 'string' ? appUrl : null };
}
