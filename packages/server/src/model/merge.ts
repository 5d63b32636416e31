import type { AccountMerge } from './accounts.js';

// How a merge is decided, the same way by both stores: each reads both accounts' groups and
// active devices in its transaction and hands them over. Pure.

/** An active device of one of the two accounts, as the merge weighs it. */
export interface MergingDevice {
  id: string;
  /** The app's own id for itself, when it linked itself: the same one in both is one device. */
  clientId: string | null;
}

export type MergePlan =
  | Exclude<AccountMerge, { kind: 'merged' }>
  | {
      kind: 'merge';
      /** The merged account's devices that the canonical one has too (by device id): removed. */
      removed: string[];
    };

/**
 * A merge of groups of `canonicalGroup` and `mergedGroup` accounts, with these active devices: a
 * group holds at most `groupMax` accounts, and the merged account's registration of a device id
 * the canonical one has is removed; what is left must fit the devices limit.
 */
export function planMerge(
  sizes: { canonicalGroup: number; mergedGroup: number },
  devices: { canonical: readonly MergingDevice[]; merged: readonly MergingDevice[] },
  limits: { groupMax: number; devices: number },
): MergePlan {
  if (sizes.canonicalGroup + sizes.mergedGroup > limits.groupMax) return { kind: 'group_full' };
  const kept = new Set(devices.canonical.map((device) => device.clientId).filter((id) => id !== null));
  const removed = devices.merged
    .filter((device) => device.clientId !== null && kept.has(device.clientId))
    .map((device) => device.id);
  if (devices.canonical.length + devices.merged.length - removed.length > limits.devices) {
    return { kind: 'devices_limit' };
  }
  return { kind: 'merge', removed };
}
