import type { FastifyInstance } from 'fastify';
import { type DocumentedRoute, openApiDocument } from './document.js';

/**
 * Keeps each route the app registers with a description (`config.doc`), for the document. Added
 * before the routes: Fastify tells a hook of the routes registered after it.
 */
export function collectDocumentedRoutes(app: FastifyInstance): readonly DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', ({ method, url, config }) => {
    if (!config?.doc) return;
    // The HEAD Fastify adds beside each GET responds as the GET does: the document lists the GET.
    for (const one of [method].flat().filter((name) => name !== 'HEAD')) {
      routes.push({
        method: one,
        path: url.replace(/:(\w+)/g, '{$1}'),
        // A token in the path is no bearer credential.
        credentials: config.tokenInPath || !Array.isArray(config.credentials) ? [] : config.credentials,
        doc: config.doc,
      });
    }
  });
  return routes;
}

/** `GET /openapi.json`: the interface as OpenAPI 3.1, for anyone (it holds no secret). */
export async function openApiRoutes(
  app: FastifyInstance,
  { routes }: { routes: readonly DocumentedRoute[] },
): Promise<void> {
  // Made on the first request, when every route is registered, and kept.
  let document: string | undefined;
  app.get(
    '/openapi.json',
    {
      config: {
        credentials: 'none',
        doc: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          responses: { 200: { description: 'The OpenAPI 3.1 document of this interface.' } },
        },
      },
    },
    async (_request, reply) => {
      document ??= JSON.stringify(openApiDocument(routes));
      reply.header('content-type', 'application/json; charset=utf-8');
      reply.header('cache-control', 'public, max-age=3600');
      return document;
    },
  );
}
