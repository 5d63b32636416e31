import { existsSync, readFileSync } from 'node:fs';
import { inactiveInWords, seenInWords } from '@foxbell/sdk/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathIdOf } from '../http/path-ids.js';
import { type DeviceViewing, deviceView } from '../http/views.js';
import { isoTime } from '../kernel/clock.js';
import { HttpError } from '../kernel/http-error.js';
import { isLocalRequest } from '../kernel/local-only.js';
import type { Device } from '../model/devices.js';
import { type PushFeed, simulatorView } from '../simulator/device-page.js';
import type { ReceivedPush } from '../simulator/simulator.js';
import type { Store } from '../store/store.js';

/** An inactive device's reason, and the sentence the page shows for it. */
function inactiveOf(device: Device) {
  const { what, advice } = inactiveInWords(device.inactiveReason ?? undefined);
  return {
    ...(device.inactiveReason === null ? {} : { inactive_reason: device.inactiveReason }),
    inactive: `${what[0]?.toUpperCase()}${what.slice(1)}: ${advice}.`,
  };
}

/** What the device page needs from the process: the dev account and the simulator inside. */
export interface DevPageDeps {
  /** The dev account and its key, once seeded; undefined before. */
  session(): Promise<{ accountId: string; accountKey: string } | undefined>;
  /** The simulator inside the process; undefined when pushes go elsewhere. */
  simulator(): PushFeed | undefined;
}

// `dev-page/` at the package's root: one level up from the bundle in dist/, two from this file.
const ASSETS = ['../dev-page/', '../../dev-page/']
  .map((relative) => new URL(relative, import.meta.url))
  .find((url) => existsSync(new URL('index.html', url))) as URL;
const asset = (name: string) => readFileSync(new URL(name, ASSETS), 'utf8');

/** Live push streams open at once; a page holds one. */
export const MAX_PUSH_STREAMS = 16;

// The page may load nothing from elsewhere; images are shown only when the user asks.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/**
 * The device page of `--dev` (`/` and `/devices`): the dev account's three simulated devices,
 * drawn side by side, showing what the built-in APNs simulator received for each, live. Plain
 * HTML, CSS and an ES module read from `dev-page/`: nothing to build.
 */
export function devPageRoutes(
  app: FastifyInstance,
  store: Store,
  deps: DevPageDeps,
  /** What a device's freshness is judged by now (the app's clock and --device-stale-days). */
  freshnessNow: () => DeviceViewing,
): void {
  // A plugin of its own: the guard below is a hook of this scope, so it runs for every route
  // registered here, whatever spelling of the URL the router matched (percent-encoded, absolute
  // form), and for no other route.
  void app.register(async (scope) => {
    scope.addHook('onRequest', (request, _reply, done) => {
      done(
        isLocalRequest(request)
          ? undefined
          : new HttpError('forbidden', 'the device page answers this machine only'),
      );
    });
    devPage(scope, store, deps, freshnessNow);
  });
}

/** How many of the newest notifications a page is shown when it connects. */
export const HISTORY_LENGTH = 50;

/**
 * What the dev devices were pushed, rebuilt from the store: the newest notifications of the
 * account, oldest first, one push per device the push service accepted it for. It survives a
 * restart, which the simulator's memory does not.
 */
async function historyOf(store: Store, devices: Device[]) {
  const [first] = devices;
  if (!first) return [];
  const page = await store.inbox(first.accountId, { after: undefined, limit: HISTORY_LENGTH, since: 0 });
  const view = simulatorView(devices);
  return page.items.reverse().flatMap((stored) => view.rebuilt(stored));
}

function devPage(
  app: FastifyInstance,
  store: Store,
  deps: DevPageDeps,
  freshnessNow: () => DeviceViewing,
): void {
  const files = {
    html: asset('index.html'),
    css: asset('page.css'),
    js: asset('page.js'),
  };

  const page = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(files.html);
  // No credential: the plugin's guard above serves this machine only.
  const local = { config: { credentials: 'none' } } as const;
  app.get('/', local, page);
  app.get('/devices', local, page);
  app.get('/dev/page.css', local, async (_request, reply) =>
    reply.headers(PAGE_HEADERS).type('text/css; charset=utf-8').send(files.css),
  );
  app.get('/dev/page.js', local, async (_request, reply) =>
    reply.headers(PAGE_HEADERS).type('text/javascript; charset=utf-8').send(files.js),
  );

  // Open streams end when the server stops, so they do not hold the stop open. At most
  // MAX_PUSH_STREAMS are open: a new one closes the oldest (a page left open in a forgotten tab).
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });

  const sessionOf = async () => {
    const session = await deps.session();
    if (!session) throw new HttpError('not_found', 'the dev account is not seeded yet');
    return session;
  };
  const devicesOf = async () => {
    const session = await sessionOf();
    return { session, devices: await store.listDevices(session.accountId, { activeOnly: false }) };
  };

  app.get('/dev/session', local, async (_request, reply) => {
    const { session, devices } = await devicesOf();
    const seen = freshnessNow();
    const view = simulatorView(devices);
    reply.header('cache-control', 'no-store');
    return {
      account_key: session.accountKey,
      simulator: deps.simulator() !== undefined,
      devices: devices.map((device) => ({
        id: device.id,
        name: device.name,
        platform: device.platform,
        active: device.active,
        // Why it is not, in the words its card shows, with what to do.
        ...(device.active ? {} : inactiveOf(device)),
        // Another provider's pushes go to its push service, not the simulator: the page says which.
        ...(view.shown(device) ?? {
          transport: deviceView(device, seen).transport ?? device.address.provider,
        }),
        // A real device (one that linked itself, or another provider's) says when it was last
        // seen; the simulated ones have no app to be seen by.
        ...(device.clientId !== null || view.shown(device) === undefined
          ? { seen: seenInWords(deviceView(device, seen), seen.now), stale: deviceView(device, seen).stale }
          : {}),
      })),
    };
  });

  // Each device's state for a notification, with device ids (the spec's record leaves them out).
  app.get<{ Params: { id: string } }>(
    '/dev/notifications/:id',
    { ...local, onRequest: pathIdOf('ntf') },
    async (request) => {
      // Polled by the page for every card still moving: no device listing here.
      const session = await sessionOf();
      const stored = await store.getNotification(request.params.id);
      if (!stored || stored.accountId !== session.accountId) {
        throw new HttpError('not_found', 'no such notification in the dev account');
      }
      return {
        id: stored.id,
        status: stored.status,
        reason: stored.reason,
        destinations: stored.destinations.map((d) => ({
          device_id: d.deviceId,
          state: d.state,
          push_status: d.pushStatus,
          updated_at: isoTime(d.updatedAt),
        })),
        handled: stored.handled.map((h) => ({ device_id: h.deviceId, action: h.action, at: isoTime(h.at) })),
      };
    },
  );

  // Server-sent events: every push the simulator received for the dev devices, then each new one.
  app.get('/dev/pushes', local, async (request, reply) => {
    const { devices } = await devicesOf();
    const simulator = deps.simulator();
    const view = simulatorView(devices);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-request-id': request.id,
    });
    const write = (received: ReceivedPush) => {
      const push = view.pushOf(received);
      if (push) raw.write(`event: push\ndata: ${JSON.stringify(push)}\n\n`);
    };
    raw.write(`event: ready\ndata: ${JSON.stringify({ simulator: simulator !== undefined })}\n\n`);
    if (!simulator) {
      raw.end();
      return;
    }
    // The stream counts against the limit from its first byte, not once its history is read: under
    // load the history of several streams is read at once, and a stream counted late let one more
    // than the limit stay open and closed a newer one instead of the oldest.
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    let unsubscribe = () => {};
    const end = () => {
      clearInterval(keepAlive);
      unsubscribe();
      streams.delete(end);
      raw.end();
    };
    if (streams.size >= MAX_PUSH_STREAMS) streams.values().next().value?.();
    streams.add(end);
    raw.on('close', end);
    // Pushes that arrive while the history is read wait for it, so none is missed or out of order;
    // one in both is drawn once (the page knows each card by notification and device).
    let arrived: ReceivedPush[] | undefined = [];
    unsubscribe = simulator.onPush((push) => (arrived ? arrived.push(push) : write(push)));
    let history: Awaited<ReturnType<typeof historyOf>> = [];
    try {
      history = await historyOf(store, devices);
    } catch (error) {
      request.log.warn({ err: error }, 'could not read the device page history');
    }
    // Ended while its history was read (a newer stream, the server stopping, the client gone).
    if (raw.writableEnded || raw.destroyed) return;
    for (const push of history) raw.write(`event: push\ndata: ${JSON.stringify(push)}\n\n`);
    for (const push of arrived) write(push);
    arrived = undefined;
    raw.write('event: live\ndata: {}\n\n');
    // A comment line now and then keeps proxies and idle timers from closing the stream.
    keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
  });
}
