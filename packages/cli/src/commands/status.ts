import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import { deviceState } from '../delivery-view.js';
import { EXIT } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';
import { endOfWait, follow, waitSeconds } from '../sending.js';

export const run: Handler<GlobalArgs & { id: string; wait?: string }> = async (args, context) => {
  const { out } = context;
  const { client } = await openClient(args, context);
  const wait = waitSeconds(args.wait);
  const record =
    wait === undefined ? await client.status(args.id) : await follow(client, args.id, wait, context);
  out.result(
    record,
    () =>
      [
        `${record.id} ${record.status}${record.reason ? ` (${record.reason})` : ''}`,
        ...(record.destinations.length === 0
          ? record.status === 'dropped'
            ? []
            : ['  not yet routed to a device']
          : record.destinations.map(
              (destination) => `  ${deviceState(destination)}, ${destination.updated_at}`,
            )),
      ].join('\n'),
    record.status,
  );
  return wait === undefined ? EXIT.ok : endOfWait(record, out);
};
