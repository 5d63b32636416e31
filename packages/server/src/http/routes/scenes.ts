import { SCENE_ID_PATTERN } from '@foxbell/sdk/contract';
import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { CATALOG } from '../../kernel/catalog.js';

const catalogResponse = z
  .object({
    scenes: z.array(
      z.object({
        id: z.string().meta({ pattern: SCENE_ID_PATTERN.source }),
        name: z.string(),
        current_version: z.int(),
        versions: z.array(
          z.object({
            version: z.int(),
            params: z
              .record(z.string(), z.unknown())
              .meta({ description: "The version's parameters, as a JSON Schema (2020-12)." }),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'Catalog' });

export async function sceneRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/v1/scenes',
    {
      config: {
        credentials: ['send', 'account', 'admin'],
        doc: {
          operationId: 'listScenes',
          summary: 'The scene catalog',
          responses: { 200: { description: 'Every scene with its versions.', schema: catalogResponse } },
        },
      },
    },
    async () => CATALOG,
  );
}
