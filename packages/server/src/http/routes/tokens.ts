import { isKnownScene } from '@foxbell/sdk/contract';
import { parseTimestamp } from '@foxbell/sdk/server-contract';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { HttpError } from '../../kernel/http-error.js';
import { hashSecret } from '../../kernel/secrets.js';
import { callerAccount, type RoutesOptions } from '../context.js';
import { readBody, textField } from '../management-body.js';
import { noSuch, pathIdOf } from '../path-ids.js';
import { MANAGEMENT_WRITE, pathId } from '../route-doc.js';
import { newTokenSchema, tokenSchema, tokenView } from '../views.js';

const tokensResponse = z.object({ tokens: z.array(tokenSchema) }).meta({ id: 'Tokens' });

export const newToken = z.strictObject({
  name: textField(1, 64).default('Sender'),
  kind: z.enum(['standard', 'agent']).default('standard'),
  own_status: z.boolean().default(true),
  device_names: z.boolean().default(true),
  scenes: z
    .array(z.string().refine(isKnownScene, 'must list only scenes of the catalog'))
    .min(1, 'must list at least one scene (leave it out to allow every scene)')
    .optional(),
  allow_urls: z.boolean().optional(),
  default_target: textField(1, 64).optional(),
  expires_at: z
    .string()
    .transform((text, ctx) => {
      const ms = parseTimestamp(text);
      if (ms !== undefined) return ms;
      ctx.addIssue({ code: 'custom', message: 'must be a real moment, written YYYY-MM-DDTHH:MM:SS.mmmZ' });
      return z.NEVER;
    })
    .optional(),
});

export async function tokenRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  app.post(
    '/v1/tokens',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'createToken',
          summary: 'Make a send token',
          body: { schema: newToken },
          responses: {
            201: { description: 'The token, with its secret shown this once.', schema: newTokenSchema },
          },
          errors: [...MANAGEMENT_WRITE, 'limit_reached'],
        },
      },
    },
    async (request, reply) => {
      const account = callerAccount(request.caller);
      const body = readBody(request, newToken);
      const now = ctx.clock.now();
      const expiresAt = body.expires_at ?? null;
      if (expiresAt !== null && expiresAt <= now) {
        throw new HttpError('invalid_field', 'expires_at must be in the future', {
          field: 'expires_at',
        });
      }
      const secret = ctx.ids.secret('send');
      const created = await ctx.store.createToken(
        {
          id: ctx.ids.id('tok'),
          accountId: account.id,
          name: body.name,
          kind: body.kind,
          ownStatus: body.own_status,
          deviceNames: body.device_names,
          scenes: body.scenes === undefined ? null : [...new Set(body.scenes)],
          // Tokens meant for agents may not send links unless asked for (spec, Authentication 4).
          allowUrls: body.allow_urls ?? body.kind !== 'agent',
          defaultTarget: body.default_target ?? null,
          expiresAt,
          createdAt: now,
        },
        hashSecret(secret),
        ctx.limits.tokensPerAccount,
      );
      if (created === 'limit_reached') {
        throw new HttpError('limit_reached', `an account has at most ${ctx.limits.tokensPerAccount} tokens`, {
          details: { limit: 'tokens', max: ctx.limits.tokensPerAccount },
        });
      }
      // The secret is shown here once; only its hash is kept.
      return reply.code(201).send({ ...tokenView(created), token: secret });
    },
  );

  app.get(
    '/v1/tokens',
    {
      config: {
        credentials: ['account'],
        doc: {
          operationId: 'listTokens',
          summary: "The account's send tokens, without secrets",
          responses: {
            200: { description: 'Live tokens and the newest 50 revoked or expired.', schema: tokensResponse },
          },
          errors: ['forbidden'],
        },
      },
    },
    async (request) => {
      const tokens = await ctx.store.listTokens(callerAccount(request.caller).id, ctx.clock.now());
      return { tokens: tokens.map(tokenView) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/tokens/:id',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'revokeToken',
          summary: 'Revoke a send token',
          parameters: [pathId('id', 'A token id.')],
          responses: { 204: { description: 'Revoked.' } },
          errors: ['forbidden', 'not_found', 'rate_limited'],
        },
      },
      onRequest: pathIdOf('tok'),
    },
    async (request, reply) => {
      const account = callerAccount(request.caller);
      if (!(await ctx.store.revokeToken(account.id, request.params.id, ctx.clock.now()))) {
        throw noSuch('tok');
      }
      return reply.code(204).send();
    },
  );
}
