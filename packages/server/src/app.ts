import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { type Clock, systemClock } from './clock.js';
import { ApiError } from './errors.js';
import { registerAuth } from './http/auth.js';
import { registerBodyParsers } from './http/body-parsers.js';
import { type AppContext, DEFAULT_LIMITS, type ServiceLimits } from './http/context.js';
import {
  clientErrorResponder,
  redactUrl,
  registerErrorHandling,
  sendApiError,
} from './http/error-handler.js';
import { registerRateLimitHeaders } from './http/rate-limit-headers.js';
import { registerRequestSize } from './http/request-size.js';
import { accountRoutes } from './http/routes/accounts.js';
import { adminRoutes } from './http/routes/admin.js';
import { type DevPageDeps, devPageRoutes } from './http/routes/dev-page.js';
import { deviceRoutes } from './http/routes/devices.js';
import { inboxRoutes } from './http/routes/inbox.js';
import { notificationRoutes } from './http/routes/notifications.js';
import { sceneRoutes } from './http/routes/scenes.js';
import { sendRoutes } from './http/routes/send.js';
import { tokenRoutes } from './http/routes/tokens.js';
import { type IdSource, randomIds } from './ids.js';
import type { Store } from './store/store.js';

export interface AppDeps {
  store: Store;
  clock?: Clock;
  ids?: IdSource;
  adminKey?: string | undefined;
  limits?: Partial<ServiceLimits>;
  /** Where log lines go and from which level (pino); left out, the app logs nothing. */
  logger?: { level: string; stream: NodeJS.WritableStream };
  /** Called after each accepted send; the process wires it to its delivery worker. */
  onQueued?: () => void;
  /** Serves the device page (`--dev`). */
  devPage?: DevPageDeps;
  /** How long a client may take; see DEFAULT_TIMEOUTS. */
  timeouts?: Partial<Timeouts>;
}

export interface Timeouts {
  /** From a connection's first byte (or its previous request) to the end of the headers. */
  headersMs: number;
  /** From the first byte to the end of the body. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

/**
 * A request is at most 16 KB: a client that takes seconds to send it is broken or hostile, and
 * holds a connection others could use. Node looks for late clients every second at most (its
 * `connectionsCheckingInterval`), so each limit holds to within a second.
 */
export const DEFAULT_TIMEOUTS: Timeouts = { headersMs: 10_000, requestMs: 15_000, keepAliveMs: 72_000 };

/**
 * The Foxbell service as a Fastify instance: every route, hook and rule, and nothing of the
 * process (no port, no signals, no workers). Tests listen on a free port or inject; server.ts
 * runs it for real.
 */
export function buildApp(deps: AppDeps): FastifyInstance {
  const ids = deps.ids ?? randomIds;
  const ctx: AppContext = {
    store: deps.store,
    clock: deps.clock ?? systemClock,
    ids,
    limits: { ...DEFAULT_LIMITS, ...deps.limits },
    adminKey: deps.adminKey,
    onQueued: deps.onQueued ?? (() => {}),
    inFlight: { sends: 0 },
  };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...deps.timeouts };
  const app = Fastify({
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs / 2),
    },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    logger: deps.logger ?? false,
    genReqId: () => ids.id('req'),
    requestIdHeader: false,
    // One line per request is written in onResponse, with the URL token redacted.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    // A HEAD request must never send: link previewers probe URLs with HEAD.
    exposeHeadRoutes: false,
    // The spec's paths are exact; `/v1/scenes/` is not `/v1/scenes`.
    routerOptions: { ignoreTrailingSlash: false },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler: clientErrorResponder(ids),
    frameworkErrors: (error, request, reply) =>
      sendApiError(
        reply,
        request,
        new ApiError('invalid_request', `the request could not be read: ${error.message}`),
      ),
  }) as unknown as FastifyInstance;

  app.addHook('onRequest', (request, reply, done) => {
    // Every answer is about one caller's data or credentials: nothing may cache it, and no
    // browser may guess it is something other than what it says.
    reply.headers({
      'x-request-id': request.id,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    done();
  });
  // While the server stops, answers to requests still in flight close their connection, so that
  // a keep-alive client does not hold the stop open until its idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  registerRequestSize(app);
  registerAuth(app, ctx);
  registerRateLimitHeaders(app, ctx);
  registerBodyParsers(app);
  registerErrorHandling(app);
  if (deps.logger && ['info', 'debug', 'trace'].includes(deps.logger.level)) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.info(
        {
          method: request.method,
          url: redactUrl(request.url),
          status: reply.statusCode,
          ms: reply.elapsedTime,
        },
        'request',
      );
    });
  }

  sendRoutes(app, ctx);
  notificationRoutes(app, ctx);
  sceneRoutes(app);
  deviceRoutes(app, ctx);
  tokenRoutes(app, ctx);
  accountRoutes(app, ctx);
  inboxRoutes(app, ctx);
  adminRoutes(app, ctx);
  if (deps.devPage) devPageRoutes(app, deps.store, deps.devPage);
  return app;
}
