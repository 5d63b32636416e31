import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { HttpError } from '../../kernel/http-error.js';
import { hashSecret } from '../../kernel/secrets.js';
import { callerAccount, type RoutesOptions } from '../context.js';
import { readBody, textField } from '../management-body.js';
import { BODY_ERRORS, MANAGEMENT_WRITE } from '../route-doc.js';
import { idOf } from '../schema-parts.js';

export const newAccount = z.strictObject({ name: textField(1, 250).optional() });
export const keyRotation = z.strictObject({ generation: z.int().min(1).optional() });

const keyGeneration = z
  .int()
  .meta({ description: 'Counts rotations: a rotation names the one it replaces.' });
const newAccountResponse = z
  .object({ id: idOf('acct'), key: z.string(), generation: keyGeneration })
  .meta({ id: 'NewAccount' });
const rotatedKeyResponse = z
  .object({ key: z.string(), generation: keyGeneration })
  .meta({ id: 'RotatedKey' });

export async function accountRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  app.post(
    '/v1/accounts',
    {
      config: {
        credentials: ['admin'],
        doc: {
          operationId: 'createAccount',
          summary: 'Make an account',
          body: { schema: newAccount },
          responses: {
            201: { description: 'The account and its key, shown this once.', schema: newAccountResponse },
          },
          errors: [...BODY_ERRORS, 'forbidden', 'unsupported_media_type'],
        },
      },
    },
    async (request, reply) => {
      const body = readBody(request, newAccount);
      const key = ctx.ids.secret('acct');
      const account = await ctx.store.createAccount({
        id: ctx.ids.id('acct'),
        name: body.name ?? null,
        keyHash: hashSecret(key),
        now: ctx.clock.now(),
      });
      return reply.code(201).send({ id: account.id, key, generation: account.keyGeneration });
    },
  );

  /**
   * Rotation is compare-and-set on the key's generation: of two concurrent rotations holding the
   * same generation, one wins and the other learns the new generation from `rotation_conflict`.
   */
  app.post(
    '/v1/account/key',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'rotateAccountKey',
          summary: "Rotate the account's key",
          body: { schema: keyRotation },
          responses: {
            201: {
              description: 'The new key; the old one then gives 401 key_rotated.',
              schema: rotatedKeyResponse,
            },
          },
          errors: [...MANAGEMENT_WRITE, 'rotation_conflict'],
        },
      },
    },
    async (request, reply) => {
      const account = callerAccount(request.caller);
      const body = readBody(request, keyRotation);
      const key = ctx.ids.secret('acct');
      const result = await ctx.store.rotateAccountKey(account.id, {
        keyHash: hashSecret(key),
        expectedGeneration: body.generation,
        now: ctx.clock.now(),
      });
      if (!result.ok) {
        throw new HttpError('rotation_conflict', 'another rotation replaced this generation of the key', {
          field: 'generation',
          details: { generation: result.generation },
        });
      }
      return reply.code(201).send({ key, generation: result.generation });
    },
  );

  app.delete(
    '/v1/account',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'deleteAccount',
          summary: 'Delete the account',
          responses: { 204: { description: 'Deleted; its key and tokens then give 401 account_deleted.' } },
          errors: ['forbidden', 'rate_limited'],
        },
      },
    },
    async (request, reply) => {
      await ctx.store.deleteAccount(callerAccount(request.caller).id, ctx.clock.now());
      return reply.code(204).send();
    },
  );
}
