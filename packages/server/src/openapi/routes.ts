import type { FastifyInstance } from 'fastify';
import type { PushProvider } from '../delivery/provider.js';
import { openApiDocument } from './document.js';

/** `GET /openapi.json`: the interface as OpenAPI 3.1, for anyone (it holds no secret). */
export function openApiRoutes(app: FastifyInstance, providers: readonly PushProvider[]): void {
  // Made on the first request and kept: it depends on nothing but the contract and the providers.
  let document: string | undefined;
  app.get('/openapi.json', async (_request, reply) => {
    document ??= JSON.stringify(openApiDocument(providers));
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.header('cache-control', 'public, max-age=3600');
    return document;
  });
}
