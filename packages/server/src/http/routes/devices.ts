import { PLATFORMS } from '@foxbell/sdk/contract';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { PushProvider } from '../../delivery/provider.js';
import { HttpError } from '../../kernel/http-error.js';
import { callerAccount, freshness, type RoutesOptions } from '../context.js';
import { devicesLimitReached } from '../errors.js';
import { readBody, textField } from '../management-body.js';
import { noSuch, pathIdOf } from '../path-ids.js';
import { addressFromBody, registrationMembers } from '../push-address.js';
import { MANAGEMENT_WRITE, pathId } from '../route-doc.js';
import { deviceSchema, deviceView } from '../views.js';

/** A device name is what a send's `target` names, so it follows the same rule: 1-64 bytes of text. */
const deviceName = textField(1, 64);

/** A device registered by its account, with one push provider's member (`push_token`, `web_push`). */
export const newDevice = (providers: readonly PushProvider[]) =>
  z.strictObject({
    name: deviceName,
    platform: z.enum(PLATFORMS),
    ...registrationMembers(providers),
    in_auto: z.boolean().default(true),
  });

export const deviceChange = z.strictObject({ name: deviceName.optional(), in_auto: z.boolean().optional() });

/** What a send token may read of its account's devices: their names and platforms. */
const deviceNamesResponse = z
  .object({ devices: z.array(z.object({ name: z.string(), platform: z.enum(PLATFORMS) })) })
  .meta({ id: 'DeviceNames' });

export async function deviceRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  const registration = newDevice(ctx.providers);
  const device = deviceSchema(ctx.providers);
  const devices = z.object({ devices: z.array(device) }).meta({ id: 'Devices' });
  app.get(
    '/v1/devices',
    {
      config: {
        credentials: ['send', 'account'],
        doc: {
          operationId: 'listDevices',
          summary: "The account's devices (a send token sees active devices' names and platforms)",
          responses: {
            200: {
              description: 'With a send token: DeviceNames. With an account key: Devices.',
              schema: z.union([deviceNamesResponse, devices]).meta({ id: 'DevicesResponse' }),
            },
          },
          errors: ['forbidden'],
        },
      },
    },
    async (request) => {
      const { caller } = request;
      if (caller?.kind === 'send') {
        if (!caller.token.deviceNames) {
          throw new HttpError('forbidden', "this token's device_names read scope is off");
        }
        const devices = await ctx.store.listDevices(caller.account.id, { activeOnly: true });
        return { devices: devices.map(({ name, platform }) => ({ name, platform })) };
      }
      if (caller?.kind !== 'account')
        throw new HttpError('forbidden', 'this route takes a send token or an account key');
      const devices = await ctx.store.listDevices(caller.account.id, { activeOnly: false });
      const seen = freshness(ctx);
      return { devices: devices.map((device) => deviceView(device, seen)) };
    },
  );

  app.post(
    '/v1/devices',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'registerDevice',
          summary: 'Register a device',
          body: { schema: registration, required: true },
          responses: { 201: { description: 'The device.', schema: device } },
          errors: [...MANAGEMENT_WRITE, 'limit_reached', 'device_exists'],
        },
      },
    },
    async (request, reply) => {
      const account = callerAccount(request.caller);
      const body = readBody(request, registration);
      const { address, field } = addressFromBody(body, ctx.providers, { appUrl: null });
      const created = await ctx.store.createDevice(
        {
          id: ctx.ids.id('dev'),
          accountId: account.id,
          name: body.name,
          platform: body.platform,
          address,
          inAuto: body.in_auto,
          now: ctx.clock.now(),
        },
        ctx.limits.devicesPerAccount,
      );
      if (created === 'limit_reached') throw devicesLimitReached(ctx.limits.devicesPerAccount);
      if (created === 'device_exists') {
        throw new HttpError('device_exists', `this ${field} is registered to this account already`, {
          field,
        });
      }
      return reply.code(201).send(deviceView(created, freshness(ctx)));
    },
  );

  app.patch<{ Params: { id: string } }>(
    '/v1/devices/:id',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'updateDevice',
          summary: 'Rename a device, or take it into or out of auto',
          parameters: [pathId('id', 'A device id.')],
          body: { schema: deviceChange },
          responses: { 200: { description: 'The device.', schema: device } },
          errors: [...MANAGEMENT_WRITE, 'not_found'],
        },
      },
      onRequest: pathIdOf('dev'),
    },
    async (request) => {
      const account = callerAccount(request.caller);
      const body = readBody(request, deviceChange);
      const updated = await ctx.store.updateDevice(account.id, request.params.id, {
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.in_auto === undefined ? {} : { inAuto: body.in_auto }),
      });
      if (!updated) throw noSuch('dev');
      return deviceView(updated, freshness(ctx));
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/devices/:id',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'removeDevice',
          summary: 'Remove a device',
          parameters: [pathId('id', 'A device id.')],
          responses: { 204: { description: 'Removed; its pending destinations are skipped.' } },
          errors: ['forbidden', 'not_found', 'rate_limited'],
        },
      },
      onRequest: pathIdOf('dev'),
    },
    async (request, reply) => {
      const account = callerAccount(request.caller);
      if (!(await ctx.store.removeDevice(account.id, request.params.id, ctx.clock.now())))
        throw noSuch('dev');
      return reply.code(204).send();
    },
  );
}
