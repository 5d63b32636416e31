import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { AppContext } from '../context.js';
import { readBody } from '../management-body.js';

export const pauseBody = z.strictObject({
  paused: z.boolean(),
  retry_after: z.int().min(1).max(3600).default(30),
});

export function adminRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/admin/pause', { config: { credentials: ['admin'] } }, async (request) => {
    const body = readBody(request, pauseBody);
    await ctx.store.setPause({ paused: body.paused, retryAfterSeconds: body.retry_after });
    return { paused: body.paused, retry_after: body.retry_after };
  });
}
