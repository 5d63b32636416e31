import type { FastifyInstance } from 'fastify';
import { CATALOG } from '../../kernel/catalog.js';

export function sceneRoutes(app: FastifyInstance): void {
  app.get('/v1/scenes', { config: { credentials: ['send', 'account', 'admin'] } }, async () => CATALOG);
}
