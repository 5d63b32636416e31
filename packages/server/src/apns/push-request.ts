import { findSceneVersion, LEVEL_PUSH_PRIORITY, type Platform } from '@foxbell/sdk/contract';
import type { ClaimedDestination } from '../store/store.js';

/** APNs refuses a payload over 4 KB (`413 PayloadTooLarge`). */
export const MAX_PAYLOAD_BYTES = 4096;

/** The app bundle ids pushes are addressed to, per platform (`apns-topic`). */
export type ApnsTopics = Readonly<Record<Platform, string>>;

/** One push, without the `authorization` header the client adds. */
export interface PushRequest {
  pushToken: string;
  headers: Record<string, string>;
  payload: string;
}

const ELLIPSIS = '…';

/**
 * The push for one destination. The app's notification extension reads `foxbell` to play the
 * scene and show the sender; `aps.alert` is what a device without the extension shows.
 *
 * The payload is kept within 4 KB: the message is shortened first (the full text stays in the
 * inbox, and `foxbell.truncated` tells the app to fetch it), then, if the other fields alone are
 * still too big, the image, the link and the scene parameters are left out in that order (the app
 * gets them from the inbox the same way).
 */
export function pushRequestFor(destination: ClaimedDestination, topics: ApnsTopics): PushRequest {
  const n = destination.notification;
  const headers: Record<string, string> = {
    'apns-push-type': 'alert',
    'apns-topic': topics[destination.platform],
    'apns-priority': String(LEVEL_PUSH_PRIORITY[n.level]),
    'apns-expiration': String(Math.floor(destination.expiresAt / 1000)),
    'apns-id': destination.apnsId,
  };
  if (n.tag !== undefined) headers['apns-collapse-id'] = n.tag;

  return { pushToken: destination.pushToken, headers, payload: payloadOf(destination) };
}

/**
 * Every device of a notification gets the same payload: it is built once per notification
 * (the claimed destinations of one notification share its object), not once per device.
 */
const payloads = new WeakMap<ClaimedDestination['notification'], { key: string; payload: string }>();

function payloadOf({ notification, notificationId, senderName }: ClaimedDestination): string {
  const key = `${notificationId} ${senderName}`;
  const cached = payloads.get(notification);
  if (cached?.key === key) return cached.payload;
  const payload = buildPayload(notification, notificationId, senderName);
  payloads.set(notification, { key, payload });
  return payload;
}

/** The JSON payload, within APNs' 4 KB: a long message is shortened, then optional keys dropped. */
function buildPayload(
  n: ClaimedDestination['notification'],
  notificationId: string,
  senderName: string,
): string {
  const custom: Record<string, unknown> = {
    id: notificationId,
    sender: senderName,
    scene: n.scene,
    scene_version: n.scene_version,
    scene_params: n.scene_params,
    bell_color: n.bell_color,
    url: n.url,
    url_title: n.url_title,
    image: n.image,
  };
  const build = (body: string) =>
    JSON.stringify({
      aps: {
        alert: {
          title: n.title ?? findSceneVersion(n.scene, n.scene_version)?.name ?? n.scene,
          subtitle: n.subtitle,
          body,
        },
        sound: n.sound === 'none' ? undefined : 'default',
        'thread-id': n.group,
        'interruption-level': n.level,
        // Lets the notification service extension draw the scene before the alert shows.
        'mutable-content': 1,
      },
      foxbell: custom,
    });

  let payload = build(n.message);
  if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) return payload;

  custom.truncated = true;
  for (const dropped of [undefined, ['image'], ['url', 'url_title'], ['scene_params']] as const) {
    for (const key of dropped ?? []) custom[key] = undefined;
    const room = MAX_PAYLOAD_BYTES - Buffer.byteLength(build(''));
    if (room > Buffer.byteLength(ELLIPSIS) + 2) {
      payload = build(shorten(n.message, room));
      if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) break;
    }
  }
  return payload;
}

/**
 * The longest prefix of `message` (whole code points) whose JSON string form, with an ellipsis,
 * fits in `room` bytes. JSON escapes count: a newline costs two bytes, a tab two.
 */
function shorten(message: string, room: number): string {
  const budget = room - Buffer.byteLength(JSON.stringify(ELLIPSIS)) + 2;
  let used = 0;
  let end = 0;
  for (const char of message) {
    const cost = Buffer.byteLength(JSON.stringify(char)) - 2;
    if (used + cost > budget) break;
    used += cost;
    end += char.length;
  }
  return message.slice(0, end) + ELLIPSIS;
}
