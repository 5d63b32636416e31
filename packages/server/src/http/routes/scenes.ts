import { sceneCatalog } from '@foxbell/sdk/contract';
import type { FastifyInstance } from 'fastify';

export function sceneRoutes(app: FastifyInstance): void {
  // The catalog is fixed for the life of the process: build its JSON Schemas once.
  const catalog = sceneCatalog();
  app.get('/v1/scenes', { config: { credentials: ['send', 'account', 'admin'] } }, async () => catalog);
}
