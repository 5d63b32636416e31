import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../../openapi/document.js';

/** `GET /openapi.json`: the interface as OpenAPI 3.1, for anyone (it holds no secret). */
export function openApiRoutes(app: FastifyInstance): void {
  // Made once: it depends on nothing but the contract.
  const document = JSON.stringify(openApiDocument());
  app.get('/openapi.json', async (_request, reply) => {
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.header('cache-control', 'public, max-age=3600');
    return document;
  });
}
