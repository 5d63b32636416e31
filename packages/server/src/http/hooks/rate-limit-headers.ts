import { nextUtcMonthStart } from '@foxbell/sdk/server-contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/**
 * `X-RateLimit-Limit`, `-Remaining` and `-Reset` on every response of a send route once the token
 * is known, errors included: the monthly quota, what is left of it, and the epoch second the UTC
 * month ends. Registered in the send routes' own scope, so no other route runs it.
 */
export function registerRateLimitHeaders(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('monthlyCount', undefined);
  // The callback form: a send that was stored knows its count, and then nothing is awaited.
  app.addHook('onSend', (request, reply, payload, done) => {
    const { caller } = request;
    if (caller?.kind !== 'send') return done(null, payload);
    const now = ctx.clock.now();
    const setHeaders = (used: number) => {
      const limit = ctx.limits.perAccountPerMonth;
      reply.header('x-ratelimit-limit', String(limit));
      reply.header('x-ratelimit-remaining', String(Math.max(0, limit - used)));
      reply.header('x-ratelimit-reset', String(nextUtcMonthStart(now) / 1000));
      done(null, payload);
    };
    if (request.monthlyCount !== undefined) return setHeaders(request.monthlyCount);
    ctx.store.monthlyCount(caller.account.id, now).then(setHeaders, (error: Error) => done(error));
  });
}
