import { createECDH } from 'node:crypto';
import * as z from 'zod';
import { ApiError } from '../kernel/api-error.js';
import type { PushHosts, WebPushKeys } from '../kernel/web-push.js';

/** Where a device's pushes go, as a registration gives it: exactly one of the two. */
export type PushRegistration =
  | { pushToken: string; webPush: null }
  | { pushToken: string; webPush: WebPushKeys };

/** An APNs device token: 32 bytes in hex. */
export const apnsPushToken = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits');

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

/** A point on P-256: computing a shared secret with it is what refuses one off the curve. */
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
        // given (PostgreSQL refuses a NUL outright): refused, whatever the parser would make of it.
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
 * Exactly one of `push_token` and `web_push`: neither is `missing_field push_token`, both
 * `invalid_field web_push`. `appUrl` is where the registering web app was served from.
 */
export function pushRegistrationOf(
  body: {
    push_token?: string | undefined;
    web_push?: z.output<ReturnType<typeof webPushSubscription>> | undefined;
  },
  appUrl: string | null,
): PushRegistration {
  if (body.push_token !== undefined && body.web_push !== undefined) {
    throw ApiError.fromField({
      code: 'invalid_field',
      field: 'web_push',
      message: 'web_push and push_token cannot both be given: a device is reached one way',
    });
  }
  if (body.web_push !== undefined) {
    const { endpoint, keys } = body.web_push;
    return { pushToken: endpoint, webPush: { p256dh: keys.p256dh, auth: keys.auth, appUrl } };
  }
  if (body.push_token === undefined) {
    throw ApiError.fromField({
      code: 'missing_field',
      field: 'push_token',
      message: 'push_token (an APNs device token) or web_push (a Web Push subscription) is required',
    });
  }
  return { pushToken: body.push_token.toLowerCase(), webPush: null };
}
