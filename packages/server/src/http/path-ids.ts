import { MESSAGES } from '@foxbell/sdk/server-contract';
import type { onRequestHookHandler } from 'fastify';
import { HttpError } from '../kernel/http-error.js';
import { type IdPrefix, isIdShaped } from '../kernel/ids.js';

/** The ids routes take in their path, and what each names. */
export type PathIdPrefix = Extract<IdPrefix, 'ntf' | 'dev' | 'tok' | 'lnk'>;
const NAMES: Record<PathIdPrefix, string> = {
  ntf: 'notification',
  dev: 'device',
  tok: 'token',
  lnk: 'link request',
};

/** The one response for an id that names nothing the caller may see: `404 not_found`, field `id`. */
export function noSuch(prefix: PathIdPrefix): HttpError {
  return new HttpError('not_found', MESSAGES.noSuch(NAMES[prefix]), { field: 'id' });
}

/**
 * The route hook of a route that names a resource by `:id`: an id of another shape gets the same response as
 * one that exists nowhere, here, before any store sees it. A route's own hooks run after the
 * app's, so a request without a credential is `401` whatever its path holds; and the routes
 * without an id (a send) pay nothing for it.
 */
export function pathIdOf(prefix: PathIdPrefix): onRequestHookHandler {
  return (request, _reply, done) => {
    const { id } = request.params as { id?: string };
    done(id !== undefined && isIdShaped(prefix, id) ? undefined : noSuch(prefix));
  };
}
