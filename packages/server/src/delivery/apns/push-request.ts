import { findSceneVersion, type Platform } from '@foxbell/sdk/contract';
import { LEVEL_PUSH_PRIORITY } from '@foxbell/sdk/server-contract';
import { fitPayload } from '../../kernel/shorten.js';
import type { PushDestination } from '../transport.js';

/** APNs rejects a payload over 4 KB (`413 PayloadTooLarge`). */
export const MAX_PAYLOAD_BYTES = 4096;

/** The app bundle ids pushes are addressed to, per platform (`apns-topic`). */
export type ApnsTopics = Readonly<Record<Platform, string>>;

/** One push, without the `authorization` header the client adds. */
export interface PushRequest {
  pushToken: string;
  headers: Record<string, string>;
  payload: string;
}

/**
 * The push for one destination. The app's notification extension reads `foxbell` to play the
 * scene and show the sender; `aps.alert` is what a device without the extension shows.
 *
 * The payload is kept within 4 KB: the message is shortened first (the full text stays in the
 * inbox, and `foxbell.truncated` tells the app to fetch it), then, if the other fields alone are
 * still too big, the image, the link and the scene parameters are left out in that order (the app
 * gets them from the inbox the same way).
 */
export function pushRequestFor(destination: PushDestination, topics: ApnsTopics): PushRequest {
  const shared = sharedPartsOf(destination);
  const headers: Record<string, string> = {
    'apns-push-type': 'alert',
    'apns-topic': topics[destination.platform],
    'apns-priority': shared.priority,
    'apns-expiration': shared.expiration,
    'apns-id': destination.pushId,
  };
  const { tag } = destination.notification;
  if (tag !== undefined) headers['apns-collapse-id'] = tag;

  return { pushToken: destination.address.key, headers, payload: shared.payload };
}

/** What every device of a notification is sent alike. */
interface SharedParts {
  /** What it was made for: the same object may come again under another id (a test, a bench). */
  notificationId: string;
  senderName: string;
  expiresAt: number;
  payload: string;
  priority: string;
  expiration: string;
}

/**
 * Every device of a notification gets the same payload and the same priority and expiration:
 * they are made once per notification (the claimed destinations of one notification share its
 * object), not once per device.
 */
const shared = new WeakMap<PushDestination['notification'], SharedParts>();

function sharedPartsOf({
  notification,
  notificationId,
  senderName,
  expiresAt,
}: PushDestination): SharedParts {
  const cached = shared.get(notification);
  if (
    cached?.notificationId === notificationId &&
    cached.senderName === senderName &&
    cached.expiresAt === expiresAt
  ) {
    return cached;
  }
  const parts = {
    notificationId,
    senderName,
    expiresAt,
    payload: buildPayload(notification, notificationId, senderName),
    priority: String(LEVEL_PUSH_PRIORITY[notification.level]),
    expiration: String(Math.floor(expiresAt / 1000)),
  };
  shared.set(notification, parts);
  return parts;
}

/** The JSON payload, within APNs' 4 KB: a long message is shortened, then optional keys dropped. */
export function buildPayload(
  n: PushDestination['notification'],
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

  return fitPayload(MAX_PAYLOAD_BYTES, n.message, custom, build, [
    ['image'],
    ['url', 'url_title'],
    ['scene_params'],
  ]);
}
