import { createECDH } from 'node:crypto';
import * as z from 'zod';
import type { PushAddress } from '../../model/devices.js';
import type { Registration } from '../provider.js';
import { WEB_PUSH, webPush } from './entry.js';
import type { PushHosts } from './hosts.js';

/** C0 controls, DEL and C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** What a Web Push endpoint may be at most: the longest real ones are a few hundred bytes. */
const MAX_ENDPOINT_BYTES = 2048;

/** Base64url of exactly `bytes` bytes (the padding a browser may add is allowed). */
function base64urlOf(text: string, bytes: number): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url');
  return decoded.length === bytes ? decoded : undefined;
}

/** A point on P-256: computing a shared secret with it is what rejects one off the curve. */
const probe = createECDH('prime256v1');
probe.generateKeys();
function isP256Point(point: Buffer): boolean {
  if (point[0] !== 0x04) return false;
  try {
    probe.computeSecret(point);
    return true;
  } catch {
    return false;
  }
}

/**
 * A browser's `PushSubscription.toJSON()`. The endpoint must be `https:`, without user info, on
 * a push service of the allowlist: a registration never makes the server connect anywhere else.
 */
export const webPushSubscription = (hosts: PushHosts) =>
  z.strictObject({
    endpoint: z
      .string()
      .check(
        z.refine((endpoint) => Buffer.byteLength(endpoint) <= MAX_ENDPOINT_BYTES, {
          message: `must be at most ${MAX_ENDPOINT_BYTES} bytes`,
        }),
        // A URL parser drops some and escapes others, but the text would reach the database as
        // given (PostgreSQL rejects a NUL outright): rejected, whatever the parser would make of it.
        z.refine((endpoint) => !CONTROL.test(endpoint), {
          message: 'must not contain control characters',
          abort: true,
        }),
        z.refine(
          (endpoint) => {
            const url = URL.parse(endpoint);
            return url?.protocol === 'https:' && url.username === '' && url.password === '';
          },
          { message: 'must be an https:// URL without user info', abort: true },
        ),
        z.refine((endpoint) => hosts.allows(new URL(endpoint)), {
          message: 'must be on a push service this server sends to (its --web-push-hosts)',
        }),
      )
      // One subscription has one spelling: the parser's (scheme and host lower-cased, an IP
      // address in its one form, the default port and surrounding spaces dropped), so that
      // `HTTPS://…` and `https://…` are one device, not two that each get every push.
      .transform((endpoint) => new URL(endpoint).href),
    expirationTime: z.union([z.null(), z.number()]).optional(),
    keys: z.strictObject({
      p256dh: z.string().refine((key) => {
        const point = base64urlOf(key, 65);
        return point !== undefined && isP256Point(point);
      }, 'must be a P-256 public key: 65 bytes, uncompressed, base64url'),
      auth: z.string().refine((key) => base64urlOf(key, 16) !== undefined, 'must be 16 bytes, base64url'),
    }),
  });

/**
 * A device registers for Web Push with `web_push`, a browser's subscription. The address is its
 * endpoint in its canonical spelling; its data, the keys and the web app's address (kept from the
 * device's previous subscription when a change gives none).
 */
export function webPushRegistration(hosts: PushHosts): Registration {
  return {
    field: webPush.member,
    schema: webPushSubscription(hosts),
    shownAs: webPush.shownAs,
    address: (
      value: z.output<ReturnType<typeof webPushSubscription>>,
      { appUrl, previous },
    ): PushAddress => ({
      provider: WEB_PUSH,
      key: value.endpoint,
      data: {
        p256dh: value.keys.p256dh,
        auth: value.keys.auth,
        appUrl: appUrl ?? (previous?.provider === WEB_PUSH ? (previous.data?.appUrl ?? null) : null),
      },
    }),
  };
}
