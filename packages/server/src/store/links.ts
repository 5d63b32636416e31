import type { LinkApproval, LinkLimits, LinkRequest } from './store.js';

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
