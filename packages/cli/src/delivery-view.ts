import type { Destination, StatusRecord } from '@foxbell/sdk';
import { type InWords, pushFailureInWords, UNREACHED_STATES } from '@foxbell/sdk/contract';

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
function deviceLabel(destination: Destination): string {
  const { name } = destination;
  return typeof name === 'string' && name !== ''
    ? name
    : (PLATFORM_NAMES[destination.platform] ?? destination.platform);
}

type UnreachedState = (typeof UNREACHED_STATES)[number];

/**
 * Why a push will not reach its device, for each state in which it ended unreached, in the
 * contract's words: a failure's `reason`, or for a service that gives none, what a 404 or 410
 * means (`gone`). Typed by the contract's states: a state added there needs its words here.
 */
const UNREACHED_WORDS: Readonly<Record<UnreachedState, (destination: Destination) => InWords>> = {
  failed_permanent: ({ reason, push_status: status }) =>
    pushFailureInWords(reason ?? (status === 404 || status === 410 ? 'gone' : undefined)),
  expired: ({ reason }) => pushFailureInWords(reason ?? 'expired'),
  skipped: () => ({
    what: 'it was not sent to this device, which was removed or left the account',
    advice: 'see `notify devices`',
  }),
  superseded: () => ({
    what: 'a newer send with the same tag replaced it before it was sent',
    advice: 'the newer one takes its place',
  }),
};

/** Why a destination's push will not reach its device; undefined while it may, and once it did. */
function unreachedInWords(destination: Destination): InWords | undefined {
  const { state } = destination;
  return (UNREACHED_STATES as readonly string[]).includes(state)
    ? UNREACHED_WORDS[state as UnreachedState](destination)
    : undefined;
}

/** A destination's state in words: where its push is, and why it stopped if it did. */
function stateInWords(destination: Destination): string {
  const { state, push_status: status } = destination;
  const unreached = unreachedInWords(destination);
  if (unreached) {
    return `${state === 'failed_permanent' ? 'failed' : state}${status == null ? '' : ` (${status})`}: ${unreached.what}`;
  }
  switch (state) {
    case 'accepted':
      return status == null ? 'reached' : `reached (${status})`;
    case 'pending':
      return status == null ? 'pending' : `pending, retrying after ${status}`;
    case 'sending':
      return 'being pushed';
    default:
      return state;
  }
}

/**
 * Each device that will not get it, by its label, with why and what to do in one line
 * ("its notifications are turned off (…); open Foxbell on it to turn notifications on again").
 */
export function devicesNotReached(record: StatusRecord): { device: string; why: string }[] {
  return record.destinations.flatMap((destination) => {
    const words = unreachedInWords(destination);
    return words === undefined
      ? []
      : [{ device: deviceLabel(destination), why: `${words.what}; ${words.advice}` }];
  });
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
