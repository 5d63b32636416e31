import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DESTINATION_STATES, type PushFailureReason } from '@foxbell/sdk/contract';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../kernel/clock.js';
import { isLocalHost, isLoopbackAddress, requestedHost } from '../kernel/local-only.js';
import type { Store } from '../store/store.js';

/**
 * What this process counts, in Prometheus' text format (prom-client). Counters are this process's
 * own; the queue and destination gauges read the store when scraped (one query each), so with
 * several processes on PostgreSQL every process reports the same shared figures.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #sends: Counter<'endpoint' | 'outcome'>;
  readonly #pushes: Counter<'provider' | 'status'>;
  readonly #pushFailures: Counter<'provider' | 'reason'>;
  readonly #pushDuration: Histogram;
  readonly #shed: Counter;

  /** The queue read by the scrape in progress: both queue gauges share its one query. */
  #queue: ReturnType<Store['queueStats']> | undefined;

  /** `providers`: the ids of the push providers whose pushes it counts (the registry's), its label's values. */
  constructor(store: Store, clock: Clock, providers: readonly string[]) {
    const byProvider = `by provider (${providers.join(', ')})`;
    const registers = [this.registry];
    // prom-client collects every metric of a scrape at once, so the second gauge finds it pending.
    const queue = () => {
      this.#queue ??= store.queueStats().finally(() => {
        this.#queue = undefined;
      });
      return this.#queue;
    };
    collectDefaultMetrics({ register: this.registry });
    this.#sends = new Counter({
      name: 'foxbell_sends_total',
      help: 'Responses of the send routes, by endpoint (json: POST /v1/notifications; url: /v1/send/<token>) and outcome (accepted, replayed, or the error code)',
      labelNames: ['endpoint', 'outcome'],
      registers,
    });
    this.#shed = new Counter({
      name: 'foxbell_shed_total',
      help: 'Sends rejected with 503 at once because too many were being stored (--sends-in-flight)',
      registers,
    });
    this.#pushes = new Counter({
      name: 'foxbell_pushes_total',
      help: `Responses of the push services, ${byProvider} and HTTP status ('none' when no response came)`,
      labelNames: ['provider', 'status'],
      registers,
    });
    this.#pushFailures = new Counter({
      name: 'foxbell_push_failures_total',
      help: `Destinations that will not arrive (failed for good, or expired), ${byProvider} and reason (gone, refused, address_refused, not_allowed, tls, attempts_exhausted, expired)`,
      labelNames: ['provider', 'reason'],
      registers,
    });
    this.#pushDuration = new Histogram({
      name: 'foxbell_push_duration_seconds',
      help: 'From a push leaving to its response (or to giving up on one)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    new Gauge({
      name: 'foxbell_route_queue_depth',
      help: 'Notifications accepted and not yet routed to devices',
      registers,
      async collect() {
        this.set((await queue()).depth);
      },
    });
    new Gauge({
      name: 'foxbell_route_queue_oldest_seconds',
      help: 'Age of the oldest notification accepted and not yet routed (0 when none waits)',
      registers,
      async collect() {
        const { oldestCreatedAt } = await queue();
        this.set(oldestCreatedAt === undefined ? 0 : Math.max(0, (clock.now() - oldestCreatedAt) / 1000));
      },
    });
    new Gauge({
      name: 'foxbell_destinations',
      help: 'Destinations kept (30 days), by delivery state',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await store.destinationCounts();
        for (const state of DESTINATION_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
  }

  /** Each label pair's counter, made once: `inc` with labels would hash them on every send. */
  readonly #sendCounters = new Map<string, { inc(): void }>();

  send(endpoint: 'json' | 'url', outcome: string): void {
    const key = `${endpoint} ${outcome}`;
    let counter = this.#sendCounters.get(key);
    if (!counter) {
      counter = this.#sends.labels(endpoint, outcome);
      this.#sendCounters.set(key, counter);
    }
    counter.inc();
  }

  shed(): void {
    this.#shed.inc();
  }

  /** A push's response (its HTTP status, or none) after `seconds`. */
  pushed(provider: string, status: number | undefined, seconds: number): void {
    this.#pushes.inc({ provider, status: status === undefined ? 'none' : String(status) });
    this.#pushDuration.observe(seconds);
  }

  /** A destination that will not arrive, and why. */
  failed(provider: string, reason: PushFailureReason): void {
    this.#pushFailures.inc({ provider, reason });
  }
}

/**
 * The metrics on a listener of their own, apart from the API's port: `GET /metrics`, nothing else.
 * Resolves with its URL once it listens.
 */
export async function serveMetrics(
  metrics: Metrics,
  at: { host: string; port: number },
): Promise<{ url: string; server: Server }> {
  // On loopback, only a request that names this machine: a web page whose name was rebound to
  // 127.0.0.1 (DNS rebinding) sends its own. Listening elsewhere, the operator has put it on a
  // network for a scraper that may name it any way.
  const localOnly = isLoopbackAddress(at.host) || at.host === 'localhost';
  const server = createServer((request, response) => {
    if (
      localOnly &&
      !isLocalHost(requestedHost(request.url, request.headers.host), request.socket.localPort)
    ) {
      response
        .writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
        .end('forbidden: the metrics listen on this machine only; name it localhost or 127.0.0.1\n');
      return;
    }
    if (request.url !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('not found: GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`collecting metrics failed: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = at.host.includes(':') ? `[${at.host}]` : at.host;
  return { url: `http://${host}:${port}/metrics`, server };
}
