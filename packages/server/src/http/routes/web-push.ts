import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

export function webPushRoutes(app: FastifyInstance, ctx: AppContext): void {
  // The VAPID application server key a browser subscribes with: public, so no credential.
  app.get('/v1/web-push/key', async () => {
    const { publicKey } = await ctx.vapid.keys();
    return { public_key: publicKey };
  });
}
