import type { Destination, StatusRecord } from '@foxbell/sdk';

/** How people call the platforms of the spec, for a device whose name the token may not read. */
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

/** A destination's device: its name when the token may read names, else its platform. */
export function deviceLabel(destination: Destination): string {
  const { name } = destination as Destination & { name?: unknown };
  return typeof name === 'string' && name !== ''
    ? name
    : (PLATFORM_NAMES[destination.platform] ?? destination.platform);
}

/** Why a push ended without reaching its device, in words, by the push service's answer. */
function failureInWords(status: number | null | undefined): string {
  if (status == null) return 'no answer from its push service';
  if (status === 410)
    return 'its subscription is gone (410): open Foxbell on it to turn notifications on again';
  if (status === 404) return 'its push service does not know it (404)';
  if (status === 403) return "its push service refused this server's credentials (403)";
  if (status === 413) return 'too large for its push service (413)';
  if (status === 429 || status >= 500) return `its push service kept failing (${status})`;
  return `refused by its push service (${status})`;
}

/** A destination's state in words: where its push is, and why it stopped if it did. */
export function stateInWords(destination: Destination): string {
  const status = destination.push_status;
  switch (destination.state) {
    case 'accepted':
      return status == null ? 'reached' : `reached (${status})`;
    case 'pending':
      return status == null ? 'pending' : `pending, retrying after ${status}`;
    case 'sending':
      return 'being pushed';
    case 'failed_permanent':
      return `failed: ${failureInWords(status)}`;
    case 'expired':
      return 'expired: its ttl ran out before it could be pushed';
    case 'skipped':
      return 'skipped: the device was removed';
    case 'superseded':
      return 'replaced by a newer send with the same tag';
    default:
      return destination.state;
  }
}

export function deviceState(destination: Destination): string {
  return `${deviceLabel(destination)} ${stateInWords(destination)}`;
}

/** One line: each device's state, or why there are none yet. */
export function deliveryLine(record: StatusRecord): string {
  if (record.status === 'dropped') return `dropped (${record.reason ?? 'no reason given'})`;
  if (record.destinations.length === 0) return `${record.status}, not yet routed to a device`;
  return `${record.status}: ${record.destinations.map(deviceState).join(', ')}`;
}

/** What the counts read of a status record: its destinations' states. */
type Destinations = { destinations: readonly { state: string }[] };

/** Devices the push service accepted the notification for. */
export function devicesReached(record: Destinations): number {
  return record.destinations.filter((destination) => destination.state === 'accepted').length;
}

/** Devices whose push is still to come: waiting for an attempt, or in flight. */
export function devicesPending(record: Destinations): number {
  return record.destinations.filter(
    (destination) => destination.state === 'pending' || destination.state === 'sending',
  ).length;
}

/** "reached 1 of 3 devices; 2 pending": how far a notification got, counted. */
export function reachCount(record: Destinations): string {
  const total = record.destinations.length;
  const pending = devicesPending(record);
  return `reached ${devicesReached(record)} of ${total} ${total === 1 ? 'device' : 'devices'}${pending > 0 ? `; ${pending} pending` : ''}`;
}
