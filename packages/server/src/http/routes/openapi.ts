import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../openapi/document.js';

/** The document's text, made on the first request and kept: it depends on nothing but the contract. */
let document: string | undefined;

/** `GET /openapi.json`: the interface as OpenAPI 3.1, for anyone (it holds no secret). */
export function openApiRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', async (_request, reply) => {
    document ??= JSON.stringify(openApiDocument());
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.header('cache-control', 'public, max-age=3600');
    return document;
  });
}
