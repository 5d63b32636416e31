import type { Server as TlsServer } from 'node:tls';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { PushProvider } from './delivery/provider.js';
import { type DevPageDeps, devPageRoutes } from './dev/page-routes.js';
import { type AppContext, freshness } from './http/context.js';
import { registerAuth } from './http/hooks/auth.js';
import { registerBodyParsers } from './http/hooks/body-parsers.js';
import {
  clientErrorResponder,
  registerErrorHandling,
  sendApiError,
  setBaseHeaders,
} from './http/hooks/error-handler.js';
import { loggedPath } from './http/hooks/log-safe-path.js';
import { registerRequestSize } from './http/hooks/request-size.js';
import { registerResponseSchemas } from './http/hooks/response-schemas.js';
import { accountRoutes } from './http/routes/accounts.js';
import { adminRoutes } from './http/routes/admin.js';
import { deviceRoutes } from './http/routes/devices.js';
import { type HealthDeps, healthRoutes } from './http/routes/health.js';
import { inboxRoutes } from './http/routes/inbox.js';
import { notificationRoutes } from './http/routes/notifications.js';
import { sceneRoutes } from './http/routes/scenes.js';
import { sendRoutes } from './http/routes/send.js';
import { tokenRoutes } from './http/routes/tokens.js';
import { webAppRootRoute, webAppRoutes } from './http/routes/web-app.js';
import { trackHandshakes } from './http/tls/handshakes.js';
import { TLS_POLICY } from './http/tls/policy.js';
import { WindowLimit } from './http/window-limit.js';
import { type Clock, systemClock } from './kernel/clock.js';
import { HttpError } from './kernel/http-error.js';
import { type IdSource, randomIds } from './kernel/ids.js';
import { DEFAULT_LIMITS, type ServiceLimits } from './kernel/limits.js';
import { linkRoutes } from './linking/link-routes.js';
import { mergeRoutes } from './linking/merge-routes.js';
import { ownDeviceRoutes } from './linking/own-device-routes.js';
import type { Metrics } from './metrics/metrics.js';
import { collectDocumentedRoutes, openApiRoutes } from './openapi/routes.js';
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
  /** What `/readyz` reports of the process; left out, a process that never stops, without delivery. */
  health?: HealthDeps;
  /** Counts sends when the process serves metrics (`--metrics`). */
  metrics?: Metrics;
  /** The push providers devices register with (delivery/providers.ts); their routes are served too. */
  providers: readonly PushProvider[];
  /** Serve HTTPS with this certificate and key (PEM); `app.server.setSecureContext` replaces them. */
  tls?: { cert: Buffer; key: Buffer };
  /**
   * Reverse proxies (addresses or CIDR ranges): a request from one of them is logged with the
   * client X-Forwarded-For names; from any other peer the header is ignored. Default: none.
   */
  trustProxy?: string[];
  /** The origin people reach the server at (`--public-url`); left out, pushes open no page of it. */
  publicUrl?: string;
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
 * process (no port, no signals, no workers). Tests listen on a free port or inject; main/serve.ts
 * runs it for real.
 */
export function buildApp(deps: AppDeps): FastifyInstance {
  const ids = deps.ids ?? randomIds;
  const clock = deps.clock ?? systemClock;
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const ctx: AppContext = {
    store: deps.store,
    clock,
    ids,
    limits,
    accountWrites: {
      account_changes: new WindowLimit(limits.managementWritesPerMinute, clock, 'account_changes'),
      account_events: new WindowLimit(limits.eventsPerMinute, clock, 'account_events'),
    },
    failedCredentials: new WindowLimit(limits.failedCredentialsPerMinute, clock, 'failed_credentials'),
    linkRequests: new WindowLimit(limits.linkRequestsPerWindow, clock, 'link_requests', {
      windowMs: limits.linkWindowMs,
    }),
    adminKey: deps.adminKey,
    onQueued: deps.onQueued ?? (() => {}),
    inFlight: { sends: 0 },
    metrics: deps.metrics,
    providers: deps.providers,
    publicUrl: deps.publicUrl,
  };
  const timeouts = { ...DEFAULT_TIMEOUTS, ...deps.timeouts };
  // One line per request at info: its method, path (no query, no credential), status and time.
  const secrets = deps.adminKey === undefined ? [] : [deps.adminKey];
  const logRequest =
    deps.logger && ['info', 'debug', 'trace'].includes(deps.logger.level)
      ? (request: FastifyRequest, reply: FastifyReply) =>
          request.log.info(
            {
              method: request.method,
              path: loggedPath(request, secrets),
              client: request.ip,
              status: reply.statusCode,
              ms: reply.elapsedTime,
            },
            'request',
          )
      : undefined;
  const serverOptions = {
    // A request without Host is rejected by our own hook, in the spec's error body with its
    // request id; Node's own error is a bare 400.
    requireHostHeader: false,
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: Math.min(1000, timeouts.headersMs / 2),
  };
  const app = Fastify({
    // Fastify gives Node's server `http` or `https`, not both: the same options go in either.
    ...(deps.tls
      ? {
          https: {
            ...serverOptions,
            ...TLS_POLICY,
            cert: deps.tls.cert,
            key: deps.tls.key,
            // Node's HTTP timeouts start after the handshake; until then this one bounds it.
            handshakeTimeout: timeouts.headersMs,
          },
        }
      : { http: serverOptions }),
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    trustProxy: deps.trustProxy && deps.trustProxy.length > 0 ? deps.trustProxy : false,
    logger: deps.logger ?? false,
    genReqId: () => ids.id('req'),
    requestIdHeader: false,
    // One line per request is written in onResponse, with the URL token redacted.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    // Every GET route responds to HEAD too, as GET without its body (uptime monitors probe with it);
    // the URL-token send, whose GET sends, opts out.
    exposeHeadRoutes: true,
    // The spec's paths are exact; `/v1/scenes/` is not `/v1/scenes`.
    routerOptions: { ignoreTrailingSlash: false },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler: clientErrorResponder(ids),
    // The parser's message may quote the URL, and so a token in it: none of it is echoed.
    // (Fastify runs no hooks for these, so the request's log line is written here.)
    frameworkErrors: (_error, request, reply) => {
      sendApiError(reply, request, new HttpError('invalid_request', 'the request could not be read'));
      logRequest?.(request, reply);
    },
  }) as unknown as FastifyInstance;
  if (deps.tls) {
    const handshakes = trackHandshakes(app.server as unknown as TlsServer);
    app.addHook('preClose', async () => handshakes.destroyPending());
  }
  // Node's HTTP parser stops counting headers at 2,000 (`rawHeaders` then misses the rest, and
  // the 16 KB rule with them). The 16 KB head limit already bounds how many there can be.
  app.server.maxHeadersCount = 0;
  // An expectation other than 100-continue is one a server may ignore (RFC 9110, 10.1.1): the
  // request gets the response it would have without one, rather than with Node's bare 417.
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));

  app.addHook('onRequest', (request, reply, done) => {
    setBaseHeaders(reply, request);
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      return done(new HttpError('invalid_request', 'an HTTP/1.1 request must carry a Host header'));
    }
    done();
  });
  // While the server stops, responses to requests still in flight close their connection, so that
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
  registerBodyParsers(app);
  registerErrorHandling(app);
  if (logRequest) app.addHook('onResponse', async (request, reply) => logRequest(request, reply));
  registerResponseSchemas(app);
  const documented = collectDocumentedRoutes(app);

  // Each module's routes are a Fastify plugin, so a hook one adds (the send routes' rate-limit
  // headers and metrics) stays in it; each route carries its own description for the document.
  for (const routes of [
    sendRoutes,
    notificationRoutes,
    sceneRoutes,
    deviceRoutes,
    linkRoutes,
    ownDeviceRoutes,
    webAppRoutes,
    tokenRoutes,
    accountRoutes,
    mergeRoutes,
    inboxRoutes,
    adminRoutes,
  ]) {
    app.register(routes, { ctx });
  }
  for (const provider of deps.providers) if (provider.routes) app.register(provider.routes);
  app.register(healthRoutes, { store: deps.store, health: deps.health ?? { stopping: () => false } });
  app.register(openApiRoutes, { routes: documented });
  if (deps.devPage) devPageRoutes(app, deps.store, deps.devPage, () => freshness(ctx));
  else app.register(webAppRootRoute);
  return app;
}
