import { existsSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../kernel/http-error.js';

/**
 * The Foxbell web app at `/app/`: the person's side, added to an iPhone's Home Screen to receive
 * Web Push. Plain files from `web-app/` (and the SDK's device client, bundled into
 * `web-app/build/` by the build), served as they are, each read once.
 */

// `web-app/` at the package's root: one level up from the bundle in dist/, three from this file.
const ROOT = ['../web-app/', '../../../web-app/']
  .map((relative) => new URL(relative, import.meta.url))
  .find((url) => existsSync(new URL('index.html', url))) as URL;

const FILES: Record<string, { file: string; type: string }> = {
  '/app/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/app/scenes.js': { file: 'scenes.js', type: 'text/javascript; charset=utf-8' },
  '/app/scenes.css': { file: 'scenes.css', type: 'text/css; charset=utf-8' },
  '/app/sw.js': { file: 'sw.js', type: 'text/javascript; charset=utf-8' },
  '/app/device.js': { file: 'build/device.js', type: 'text/javascript; charset=utf-8' },
  '/app/manifest.webmanifest': { file: 'manifest.webmanifest', type: 'application/manifest+json' },
  '/app/icon.svg': { file: 'icon.svg', type: 'image/svg+xml' },
  '/app/icon-180.png': { file: 'icon-180.png', type: 'image/png' },
  '/app/icon-192.png': { file: 'icon-192.png', type: 'image/png' },
  '/app/icon-512.png': { file: 'icon-512.png', type: 'image/png' },
};

// Nothing is loaded from elsewhere: the app's own files and the service's API.
const HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  // Read again on each visit: an updated server serves an updated app at once.
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export async function webAppRoutes(app: FastifyInstance): Promise<void> {
  const cache = new Map<string, Buffer>();
  const read = (file: string): Buffer | undefined => {
    if (!cache.has(file)) {
      const url = new URL(file, ROOT);
      if (!existsSync(url)) return undefined;
      cache.set(file, readFileSync(url));
    }
    return cache.get(file);
  };
  // The app's files hold no secret: anyone may load them (the app asks for its key itself).
  const anyone = { config: { credentials: 'none' } } as const;
  app.get('/app', anyone, async (_request, reply) => reply.redirect('/app/', 301));
  for (const [path, { file, type }] of Object.entries(FILES)) {
    app.get(path, anyone, async (_request, reply) => {
      const body = read(file);
      if (body === undefined)
        throw new HttpError('not_found', 'this part of the web app is not built: pnpm build');
      return reply.headers(HEADERS).type(type).send(body);
    });
  }
}

/**
 * `GET /`: the web app, for a person who typed the server's address (a 302, not a 301 that
 * browsers keep: the root may serve something else one day). Not in dev mode, whose device page
 * is served there.
 */
export async function webAppRootRoute(app: FastifyInstance): Promise<void> {
  app.get('/', { config: { credentials: 'none' } as const }, async (_request, reply) =>
    reply.redirect('/app/', 302),
  );
}
