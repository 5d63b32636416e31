import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { HttpError } from '../../kernel/http-error.js';
import { isIdShaped } from '../../kernel/ids.js';
import { NOTIFICATION_RETENTION_MS } from '../../kernel/retention.js';
import { accountOrDevice, type RoutesOptions } from '../context.js';
import { inboxItemSchema, inboxItemView } from '../views.js';

const inboxResponse = z
  .object({ items: z.array(inboxItemSchema), next_cursor: z.string().nullable() })
  .meta({ id: 'Inbox' });

interface Cursor {
  /** The account the feed belongs to. */
  a: string;
  /** Creation time and id of the last item handed out. */
  t: number;
  i: string;
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decodeCursor(text: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    // Checked as the feed wrote it: a time no database column can hold (1e300, 2^63), or an id
    // of another shape, is not one of its cursors.
    if (
      typeof cursor.a === 'string' &&
      Number.isSafeInteger(cursor.t) &&
      cursor.t >= 0 &&
      typeof cursor.i === 'string' &&
      isIdShaped('ntf', cursor.i)
    )
      return cursor;
  } catch {}
  throw new HttpError('invalid_field', 'cursor is not a cursor this feed handed out', { field: 'cursor' });
}

const LIMIT = { default: 50, max: 100 };

export async function inboxRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  app.get<{ Querystring: Record<string, string | string[] | undefined> }>(
    '/v1/inbox',
    {
      config: {
        credentials: ['account', 'device'],
        doc: {
          operationId: 'readInbox',
          summary: "What the account's devices were sent, newest first",
          parameters: [
            { name: 'cursor', in: 'query', schema: { type: 'string' } },
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
            },
          ],
          responses: { 200: { description: 'A page of the inbox.', schema: inboxResponse } },
          errors: ['invalid_field', 'forbidden', 'cursor_expired'],
        },
      },
    },
    async (request) => {
      const account = accountOrDevice(request.caller);
      const now = ctx.clock.now();
      const since = now - NOTIFICATION_RETENTION_MS;
      const { cursor: cursorText, limit: limitText, ...unknown } = request.query;
      const [unknownName] = Object.keys(unknown);
      if (unknownName !== undefined) {
        throw new HttpError('invalid_field', `${unknownName} is not a parameter of the inbox`, {
          field: unknownName,
        });
      }
      let limit = LIMIT.default;
      if (limitText !== undefined) {
        limit = typeof limitText === 'string' && /^[0-9]{1,3}$/.test(limitText) ? Number(limitText) : 0;
        if (limit < 1 || limit > LIMIT.max) {
          throw new HttpError('invalid_field', `limit must be an integer from 1 to ${LIMIT.max}`, {
            field: 'limit',
          });
        }
      }
      let after: { createdAt: number; id: string } | undefined;
      if (cursorText !== undefined) {
        if (typeof cursorText !== 'string')
          throw new HttpError('invalid_field', 'cursor is given twice', { field: 'cursor' });
        const cursor = decodeCursor(cursorText);
        if (cursor.a !== account.id || cursor.t < since) {
          throw new HttpError(
            'cursor_expired',
            'the cursor is past retention or from another feed; start again',
          );
        }
        after = { createdAt: cursor.t, id: cursor.i };
      }
      const page = await ctx.store.inbox(account.id, { after, limit, since });
      return {
        items: page.items.map(inboxItemView),
        next_cursor: page.next
          ? encodeCursor({ a: account.id, t: page.next.createdAt, i: page.next.id })
          : null,
      };
    },
  );
}
