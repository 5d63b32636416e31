import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import type { SendArgs } from '../flags.js';
import { fieldsFromFlags, messageFrom } from '../send-fields.js';
import { deliver } from '../sending.js';

export const run: Handler<SendArgs & { message?: string[] }> = async (args, context) => {
  const { client, settings } = await openClient(args, context, { tokenOptional: args['dry-run'] === true });
  const message = await messageFrom(args.message, context.stdin);
  const fields = await fieldsFromFlags(args, client, {}, settings.fieldDefaults);
  return deliver({ ...(message === undefined ? {} : { message }), ...fields }, args, client, context);
};
