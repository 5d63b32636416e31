import { createHash } from 'node:crypto';
import type { Level } from '@foxbell/sdk/contract';

/**
 * `Urgency` (RFC 8030 §5.3) by level. Push services hold a lower urgency back to save the
 * device's battery; Apple's delivers `high` at once and may wait with `low` and `very-low` while
 * the iPhone is idle or in Low Power Mode. A passive notification can wait; a time-sensitive one
 * cannot (it is delivered at once, but Web Push cannot break through Focus as APNs'
 * time-sensitive interruption level does). docs/delivery.md gives the table.
 */
export const URGENCY: Readonly<Record<Level, 'very-low' | 'low' | 'normal' | 'high'>> = {
  passive: 'low',
  active: 'normal',
  'time-sensitive': 'high',
};

/** `TTL`: the whole seconds left until the notification's deadline (0: now or never). */
export function ttlSeconds(expiresAt: number, now: number): number {
  return Math.max(0, Math.floor((expiresAt - now) / 1000));
}

/**
 * `Topic` from a tag: at most 32 URL-safe base64 characters (RFC 8030 §5.4), where a tag may be
 * 64 bytes of any text, so it is a hash of it. The same tag is always the same topic, so the push
 * service replaces a newer send's message for an older one it still holds.
 */
export function topicOf(tag: string): string {
  return createHash('sha256').update(tag).digest('base64url').slice(0, 32);
}
