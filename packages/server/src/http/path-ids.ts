import type { FastifyInstance } from 'fastify';
import { ApiError } from '../kernel/api-error.js';
import { type IdPrefix, isIdShaped } from '../kernel/ids.js';

/** The ids routes take in their path, and what each names. */
export type PathIdPrefix = Extract<IdPrefix, 'ntf' | 'dev' | 'tok'>;
const NAMES: Record<PathIdPrefix, string> = { ntf: 'notification', dev: 'device', tok: 'token' };

/** The one answer for an id that names nothing the caller may see: `404 not_found`, field `id`. */
export function noSuch(prefix: PathIdPrefix): ApiError {
  return new ApiError('not_found', `no such ${NAMES[prefix]}`, { field: 'id' });
}

/**
 * A route that names a resource by `:id` says which kind (`config.pathId`); an id of another shape
 * is answered as one that exists nowhere, once, here, before any store sees it. (Registered after
 * auth: a request without a credential is `401` whatever its path holds.)
 */
export function registerPathIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const prefix = request.routeOptions.config.pathId;
    if (prefix === undefined) return done();
    const { id } = request.params as { id?: string };
    done(id !== undefined && isIdShaped(prefix, id) ? undefined : noSuch(prefix));
  });
}
