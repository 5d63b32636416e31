import { HANDLED_ACTIONS } from '@foxbell/sdk/server-contract';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { HttpError } from '../../kernel/http-error.js';
import { isIdShaped } from '../../kernel/ids.js';
import { accountOrDevice, type RoutesOptions } from '../context.js';
import { readBody } from '../management-body.js';
import { noSuch, pathIdOf } from '../path-ids.js';
import { BODY_ERRORS, pathId } from '../route-doc.js';
import { statusRecordSchema, statusRecordView } from '../views.js';

export const eventBody = z.strictObject({
  device_id: z.string().refine((id) => isIdShaped('dev', id), 'is not a device id'),
  action: z.enum(HANDLED_ACTIONS),
});

export async function notificationRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  /**
   * A send token reads only its own notifications, and only while its `own_status` scope is on:
   * anything else is 404, never 403, so that a lookup says nothing about what exists (spec).
   * An account key reads every notification of its account (the device page does).
   */
  app.get<{ Params: { id: string } }>(
    '/v1/notifications/:id/status',
    {
      config: {
        credentials: ['send', 'account'],
        doc: {
          operationId: 'getNotificationStatus',
          summary: "A notification's status record",
          parameters: [pathId('id', 'A notification id.')],
          responses: { 200: { description: 'The status record.', schema: statusRecordSchema } },
          errors: ['forbidden', 'not_found'],
        },
      },
      onRequest: pathIdOf('ntf'),
    },
    async (request) => {
      const { caller } = request;
      const stored = await ctx.store.getNotification(request.params.id);
      if (!stored || !caller || caller.kind === 'admin' || caller.kind === 'link') throw noSuch('ntf');
      const visible =
        caller.kind === 'send'
          ? caller.token.ownStatus && stored.tokenId === caller.token.id
          : stored.accountId === caller.account.id;
      if (!visible) throw noSuch('ntf');
      const deviceNames = caller.kind === 'account' || (caller.kind === 'send' && caller.token.deviceNames);
      return statusRecordView(stored, { deviceNames });
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/notifications/:id/events',
    {
      config: {
        credentials: ['account', 'device'],
        accountWrite: 'account_events',
        doc: {
          operationId: 'reportNotificationEvent',
          summary: 'Report that a person opened or cleared a notification on a device',
          parameters: [pathId('id', 'A notification id.')],
          body: { schema: eventBody, required: true },
          responses: { 204: { description: 'Recorded.' } },
          errors: [...BODY_ERRORS, 'forbidden', 'not_found', 'unsupported_media_type'],
        },
      },
      onRequest: pathIdOf('ntf'),
    },
    async (request, reply) => {
      const { caller } = request;
      const account = accountOrDevice(caller);
      const body = readBody(request, eventBody);
      // A linked app reports for its own device only.
      if (caller?.kind === 'device' && body.device_id !== caller.device.id) {
        throw new HttpError('forbidden', 'a device key reports for its own device only', {
          field: 'device_id',
        });
      }
      const result = await ctx.store.recordEvent({
        accountId: account.id,
        notificationId: request.params.id,
        deviceId: body.device_id,
        action: body.action,
        now: ctx.clock.now(),
      });
      if (result === 'no_notification') throw noSuch('ntf');
      if (result === 'not_routed') {
        throw new HttpError('invalid_field', 'device_id is not a device this notification was sent to', {
          field: 'device_id',
        });
      }
      return reply.code(204).send();
    },
  );
}
