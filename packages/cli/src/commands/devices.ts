import type { Device } from '@foxbell/sdk';
import { inactiveInWords, seenInWords } from '@foxbell/sdk/contract';
import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';

export const run: Handler<GlobalArgs> = async (args, context) => {
  const { client } = await openClient(args, context);
  // With an account key the inactive devices follow the active ones, each with why; a send token
  // lists the active ones only.
  const devices = await client.devices({ includeInactive: true });
  const active = devices.filter((device) => device.active !== false);
  // A name two devices share is no target: --target reaches none of them (the interface's rule).
  const shared = [
    ...new Set(active.map((device) => device.name).filter((name, i, names) => names.indexOf(name) !== i)),
  ];
  for (const name of shared) {
    context.out.warn(
      `${active.filter((device) => device.name === name).length} devices are named "${name}": --target "${name}" reaches none of them; rename one`,
    );
  }
  const width = Math.max(0, ...devices.map((device) => device.name.length));
  const platformWidth = Math.max(0, ...devices.map((device) => device.platform.length));
  const now = Date.now();
  // Freshness comes with an account key (NOTIFY_ACCOUNT_KEY) only: a send token may not read it.
  const about = (device: Device) => {
    if (device.active === false) {
      const { what, advice } = inactiveInWords(device.inactive_reason);
      return `inactive: ${what}; ${advice}`;
    }
    return device.last_seen_at === undefined ? undefined : seenInWords(device, now);
  };
  context.out.result(devices, () =>
    [
      ...(active.length === 0 ? ['No active devices'] : []),
      ...devices.map((device) => {
        const said = about(device);
        return said === undefined
          ? `${device.name.padEnd(width)}  ${device.platform}`
          : `${device.name.padEnd(width)}  ${device.platform.padEnd(platformWidth)}  ${said}`;
      }),
    ].join('\n'),
  );
  for (const device of active.filter((one) => one.stale === true)) {
    context.out.warn(
      `"${device.name}" may not receive anything: open Foxbell on it to turn notifications on again`,
    );
  }
  return EXIT.ok;
};
