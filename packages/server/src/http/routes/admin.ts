import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { RoutesOptions } from '../context.js';
import { readBody } from '../management-body.js';
import { BODY_ERRORS } from '../route-doc.js';

export const pauseBody = z.strictObject({
  paused: z.boolean(),
  retry_after: z.int().min(1).max(3600).default(30),
});

const pauseResponse = z.object({ paused: z.boolean(), retry_after: z.int() }).meta({ id: 'Pause' });

export async function adminRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  app.post(
    '/v1/admin/pause',
    {
      config: {
        credentials: ['admin'],
        doc: {
          operationId: 'setPause',
          summary: 'Pause or resume every send',
          body: { schema: pauseBody, required: true },
          responses: { 200: { description: 'The pause in force.', schema: pauseResponse } },
          errors: [...BODY_ERRORS, 'forbidden', 'unsupported_media_type'],
        },
      },
    },
    async (request) => {
      const body = readBody(request, pauseBody);
      await ctx.store.setPause({ paused: body.paused, retryAfterSeconds: body.retry_after });
      return { paused: body.paused, retry_after: body.retry_after };
    },
  );
}
