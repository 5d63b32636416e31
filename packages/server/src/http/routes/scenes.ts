import type { FastifyInstance } from 'fastify';
import { CATALOG } from '../../kernel/catalog.js';

export async function sceneRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/v1/scenes',
    {
      config: {
        credentials: ['send', 'account', 'admin'],
        doc: {
          summary: 'The scene catalog',
          answers: { 200: { description: 'Every scene with its versions.', schema: 'Catalog' } },
        },
      },
    },
    async () => CATALOG,
  );
}
