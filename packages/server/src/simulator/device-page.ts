import { randomBytes } from 'node:crypto';
import { APNS } from '../delivery/apns/entry.js';
import { buildPayload } from '../delivery/apns/push-request.js';
import { isoTime } from '../kernel/clock.js';
import type { Device, PushAddress } from '../model/devices.js';
import type { StoredNotification } from '../model/notifications.js';
import type { ApnsSimulator, ReceivedPush } from './simulator.js';

// The simulator's side of dev mode's device page (dev/): the devices it reaches, and their pushes
// as the page draws them. The page knows the simulator through this module alone.

/** What the page reads of the simulator inside the process: each push as it arrives. */
export type PushFeed = Pick<ApnsSimulator, 'onPush'>;

/** A push as the page draws it: what the simulator received (or would have), for one device. */
export type PagePush = Omit<ReceivedPush, 'apns_id'> & { device_id: string };

/** An address the simulator reaches: a made-up device token, for the dev account's devices. */
export function simulatedAddress(): PushAddress {
  return { provider: APNS, key: randomBytes(32).toString('hex'), data: null };
}

/** The simulator's view of `devices`: those it reaches, by the token it reports their pushes to. */
export function simulatorView(devices: readonly Device[]) {
  const reached = devices.filter((device) => device.address.provider === APNS);
  // The simulator reports a token in lower case.
  const byToken = new Map(reached.map((device) => [device.address.key.toLowerCase(), device]));
  const tokenOf = new Map(reached.map((device) => [device.id, device.address.key.toLowerCase()]));
  return {
    /** What the page lists of a device the simulator reaches (its token); undefined for another. */
    shown(device: Device): { push_token: string } | undefined {
      return device.address.provider === APNS ? { push_token: device.address.key } : undefined;
    },

    /** A push the simulator received, as the page draws it; undefined when it is for none of `devices`. */
    pushOf(push: ReceivedPush): PagePush | undefined {
      const device = byToken.get(push.push_token);
      return device && { device_id: device.id, ...push };
    },

    /**
     * What the simulator was pushed for a stored notification, rebuilt: one push per device it
     * reaches that the push service accepted it for.
     */
    rebuilt(stored: StoredNotification): PagePush[] {
      const payload = JSON.parse(buildPayload(stored.notification, stored.id, stored.senderName));
      const { tag } = stored.notification;
      return stored.destinations.flatMap((destination) => {
        const token = tokenOf.get(destination.deviceId);
        if (destination.state !== 'accepted' || token === undefined) return [];
        return [
          {
            device_id: destination.deviceId,
            push_token: token,
            headers: tag === undefined ? {} : { 'apns-collapse-id': tag },
            payload,
            status: 200,
            at: isoTime(destination.updatedAt),
          },
        ];
      });
    },
  };
}
