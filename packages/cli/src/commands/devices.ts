import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';

export const run: Handler<GlobalArgs> = async (args, context) => {
  const { client } = await openClient(args, context);
  const devices = await client.devices();
  const width = Math.max(0, ...devices.map((device) => device.name.length));
  context.out.result(devices, () =>
    devices.length === 0
      ? 'No active devices'
      : devices.map((device) => `${device.name.padEnd(width)}  ${device.platform}`).join('\n'),
  );
  return EXIT.ok;
};
