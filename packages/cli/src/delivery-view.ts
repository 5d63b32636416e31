import type { Destination, StatusRecord } from '@foxbell/sdk';

/** How people call the platforms of the spec. */
const PLATFORM_NAMES: Readonly<Record<string, string>> = {
  ios: 'iPhone',
  watchos: 'Apple Watch',
  visionos: 'Vision Pro',
};

/** What a dropped notification means for the sender, by the spec's drop reasons. */
export const DROP_HINTS: Readonly<Record<string, string>> = {
  no_matching_device: 'No active device matches the target; see `notify devices`',
  token_revoked: 'The token was revoked before delivery: use a new one',
  token_expired: 'The token expired before delivery: use a new one',
  expired: 'Its ttl ran out before it could be delivered',
};

export function deviceState(destination: Destination): string {
  const name = PLATFORM_NAMES[destination.platform] ?? destination.platform;
  const status = destination.push_status == null ? '' : ` (${destination.push_status})`;
  return `${name} ${destination.state}${status}`;
}

/** One line: each device's state, or why there are none yet. */
export function deliveryLine(record: StatusRecord): string {
  if (record.status === 'dropped') return `dropped (${record.reason ?? 'no reason given'})`;
  if (record.destinations.length === 0) return `${record.status}, not yet routed to a device`;
  return `${record.status}: ${record.destinations.map(deviceState).join(', ')}`;
}

/** Devices the push service accepted the notification for. */
export function devicesReached(record: StatusRecord): number {
  return record.destinations.filter((destination) => destination.state === 'accepted').length;
}
