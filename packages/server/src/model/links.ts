// Linking a device with a code: the request, the approval's outcomes, and how an approval is decided.
import type { Platform } from '@foxbell/sdk/contract';
import type { Device, PushAddress } from './devices.js';

export type LinkState = 'pending' | 'approved' | 'cancelled' | 'superseded';

/** The device a link request registers once approved. */
export interface LinkDevice {
  clientId: string;
  name: string;
  platform: Platform;
  inAuto: boolean;
  address: PushAddress;
}

export interface LinkRequest {
  id: string;
  /** As stored: `pending` past its `expiresAt` is expired. */
  state: LinkState;
  createdAt: number;
  expiresAt: number;
  device: LinkDevice;
  approved: { accountId: string; deviceId: string; at: number } | null;
  /** The device key, sealed with the poll secret, until the first read after approval. */
  sealedKey: string | null;
  /** A device switching accounts: its registration in the account it leaves, proven by its key. */
  sourceDeviceId: string | null;
}

/** The brakes on approving: in a window, so many wrong codes and so many approvals per account. */
export interface LinkLimits {
  windowMs: number;
  wrongCodes: number;
  approvals: number;
  devices: number;
}

/** How an approval ended, in the order it is checked. */
export type LinkApproval =
  | { kind: 'locked'; retryAfterMs: number }
  | { kind: 'no_code' }
  | { kind: 'superseded' }
  | { kind: 'not_pending' }
  | { kind: 'expired' }
  | { kind: 'approvals_limit'; retryAfterMs: number }
  | { kind: 'devices_limit' }
  | { kind: 'approved'; device: Device };

// How a link approval is decided, the same way by both stores: each reads what it needs in its
// transaction and hands it over. Pure, and in the interface's order: the approver's lock, the
// code, the request's state, the approvals limit, the devices limit.

/** A request's state as the interface shows it: a pending one past its expiry is `expired`. */
export function linkStateAt(request: LinkRequest, now: number): LinkRequest['state'] | 'expired' {
  return request.state === 'pending' && now >= request.expiresAt ? 'expired' : request.state;
}

/** The wait until the oldest of `times` (ascending, all within the window) leaves the window. */
function untilOldestLeaves(times: readonly number[], windowMs: number, now: number): number {
  return (times[0] ?? now) + windowMs - now;
}

/** Locked while the account gave as many wrong codes as it may in the window (times ascending). */
export function approverLock(
  wrongCodes: readonly number[],
  limits: LinkLimits,
  now: number,
): LinkApproval | undefined {
  if (wrongCodes.length < limits.wrongCodes) return undefined;
  return { kind: 'locked', retryAfterMs: untilOldestLeaves(wrongCodes, limits.windowMs, now) };
}

/** A request that cannot be approved, by its state. */
export function unapprovable(request: LinkRequest, now: number): LinkApproval | undefined {
  const state = linkStateAt(request, now);
  if (state === 'superseded') return { kind: 'superseded' };
  if (state === 'approved' || state === 'cancelled') return { kind: 'not_pending' };
  if (state === 'expired') return { kind: 'expired' };
  return undefined;
}

/** The account's room for one more link: its approvals in the window (ascending), its active devices. */
export function approverRoom(
  approvals: readonly number[],
  activeDevices: number,
  limits: LinkLimits,
  now: number,
): LinkApproval | undefined {
  if (approvals.length >= limits.approvals) {
    return { kind: 'approvals_limit', retryAfterMs: untilOldestLeaves(approvals, limits.windowMs, now) };
  }
  if (activeDevices >= limits.devices) return { kind: 'devices_limit' };
  return undefined;
}
