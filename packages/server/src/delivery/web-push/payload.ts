import { findSceneVersion } from '@foxbell/sdk/contract';
import { fitPayload } from '../../kernel/shorten.js';
import type { PushDestination } from '../transport.js';
import { webPushKeysOf } from './keys.js';

/**
 * Push services take a body of 4,096 bytes (Apple's and the RFC's floor). An `aes128gcm` body is
 * an 86-byte header (salt, record size, the sender's public key) and one record: the plaintext,
 * a padding delimiter and a 16-byte tag. What is left for the JSON is this.
 */
export const MAX_PLAINTEXT_BYTES = 4096 - 86 - 1 - 16;

/**
 * The push for one Web Push destination: JSON in the form of Declarative Web Push (WebKit, iOS
 * 18.4 and later), which the system shows by itself, with `foxbell` beside it for the app's
 * service worker, which shows it on earlier versions and other browsers. `mutable` lets the
 * service worker draw its own notification where both apply.
 *
 * The title is the sender's name (every notification shows who sent it); the body carries the
 * notification's own title, subtitle and message. A message too long for the record is cut with
 * an ellipsis (`foxbell.truncated`: the app shows the whole text from the inbox), and if the rest
 * is still too long the link goes too.
 */
export function webPushPayload(destination: PushDestination): string {
  const { notification: n, notificationId, senderName } = destination;
  const appUrl = webPushKeysOf(destination.address)?.appUrl ?? null;
  const custom: Record<string, unknown> = {
    id: notificationId,
    sender: senderName,
    title: n.title ?? findSceneVersion(n.scene, n.scene_version)?.name ?? n.scene,
    scene: n.scene,
    scene_version: n.scene_version,
    bell_color: n.bell_color,
    level: n.level,
    url: n.url,
    url_title: n.url_title,
  };
  const build = (message: string) => {
    const notification = {
      title: senderName,
      body: [n.title, n.subtitle, message].filter((part) => part !== undefined).join('\n'),
      tag: n.tag,
      silent: n.sound === 'none',
      ...(appUrl === null ? {} : { navigate: openUrl(appUrl, notificationId) }),
      // The app's badge: what came since the app was last open (Declarative Web Push sets it itself).
      ...(destination.unread === null ? {} : { app_badge: destination.unread }),
    };
    // Without the app's address there is nothing for a declarative push to open: the service
    // worker shows it.
    return JSON.stringify(
      appUrl === null
        ? { notification, foxbell: custom }
        : { web_push: 8030, notification, mutable: true, foxbell: custom },
    );
  };

  return fitPayload(MAX_PLAINTEXT_BYTES, n.message, custom, build, [['url', 'url_title']]);
}

/** The web app's page for one notification: the scene plays there, full screen. */
function openUrl(appUrl: string, notificationId: string): string {
  const url = new URL(appUrl);
  url.searchParams.set('notification', notificationId);
  return url.href;
}
