import { seenInWords } from '@foxbell/sdk/contract';
import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';

export const run: Handler<GlobalArgs> = async (args, context) => {
  const { client } = await openClient(args, context);
  const devices = await client.devices();
  const width = Math.max(0, ...devices.map((device) => device.name.length));
  // A name two devices share is no target: --target reaches none of them (the interface's rule).
  const shared = [
    ...new Set(devices.map((device) => device.name).filter((name, i, names) => names.indexOf(name) !== i)),
  ];
  for (const name of shared) {
    context.out.warn(
      `${devices.filter((device) => device.name === name).length} devices are named "${name}": --target "${name}" reaches none of them; rename one`,
    );
  }
  const platformWidth = Math.max(0, ...devices.map((device) => device.platform.length));
  const now = Date.now();
  context.out.result(devices, () =>
    devices.length === 0
      ? 'No active devices'
      : devices
          .map((device) =>
            // Freshness comes with an account key (NOTIFY_ACCOUNT_KEY) only: a send token may not read it.
            device.last_seen_at !== undefined
              ? `${device.name.padEnd(width)}  ${device.platform.padEnd(platformWidth)}  ${seenInWords(device, now)}`
              : `${device.name.padEnd(width)}  ${device.platform}`,
          )
          .join('\n'),
  );
  for (const device of devices.filter((one) => one.stale === true)) {
    context.out.warn(
      `"${device.name}" may not receive anything: open Foxbell on it to turn notifications on again`,
    );
  }
  return EXIT.ok;
};
