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
  context.out.result(devices, () =>
    devices.length === 0
      ? 'No active devices'
      : devices.map((device) => `${device.name.padEnd(width)}  ${device.platform}`).join('\n'),
  );
  return EXIT.ok;
};
