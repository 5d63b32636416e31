// The Foxbell web app's service worker. It shows every push as a system notification, whatever
// the app's state and whatever the payload, since a push that shows nothing counts against the
// app: WebKit takes a web app's subscription away after a few of those, without a word. It keeps
// the app's own files, so the app opens offline, and tells an open app of each push at once.
// Where Safari understands Declarative Web Push (iOS 18.4 and later) the payload is shown even
// without this worker; with it (`mutable`), this draws its own.

// A classic script (app.js registers it without `type: 'module'`), so no import or export: its
// checks come from tsconfig.sw.json, with the WebWorker library.

/**
 * This worker's global scope. The WebWorker library types `self` as any worker's; app.js
 * registers this file as a service worker, and only as one.
 * @returns {ServiceWorkerGlobalScope}
 */
function serviceWorkerScope() {
  if (self instanceof ServiceWorkerGlobalScope) return self;
  throw new Error('sw.js runs as a service worker only');
}
const worker = serviceWorkerScope();

const SHELL = 'foxbell-app-v4';
/** Longer than this for one of the app's files, and the kept copy is served meanwhile. */
const NETWORK_WAIT_MS = 3000;
const FILES = [
  '/app/',
  '/app/app.js',
  '/app/app.css',
  '/app/scenes.js',
  '/app/scenes.css',
  '/app/device.js',
  '/app/manifest.webmanifest',
  '/app/icon.svg',
  '/app/icon-180.png',
  '/app/icon-192.png',
];

worker.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => cache.addAll(FILES))
      .catch(() => {})
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== SHELL).map((name) => caches.delete(name))))
      .then(() => worker.clients.claim()),
  );
});

/**
 * The app's files: from the network when the server responds in time (an updated server serves an
 * updated app), else as kept. The API is never kept here: the app keeps its last inbox itself,
 * and says the server cannot be reached.
 */
worker.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== worker.location.origin) return;
  if (!url.pathname.startsWith('/app/')) return;
  const path = url.pathname;
  const network = fetch(event.request).then(async (response) => {
    if (response.ok && FILES.includes(path)) {
      const copy = response.clone();
      await caches
        .open(SHELL)
        .then((cache) => cache.put(path, copy))
        .catch(() => {});
    }
    return response;
  });
  // Kept alive until the network responds, so a late response still updates what is kept.
  event.waitUntil(network.catch(() => {}));
  event.respondWith(fromNetworkOrKept(network, path));
});

/**
 * The network's response when the server gives one within NETWORK_WAIT_MS; else the kept copy:
 * with no network, when a proxy in front responds for a server that is stopped or restarting
 * (its 5xx, a page of its own), and while a proxy holds the request looking for a server
 * (deploy/Caddyfile tries for 10 s). With nothing kept (the first open), the network's response.
 */
async function fromNetworkOrKept(/** @type {Promise<Response>} */ network, /** @type {string} */ path) {
  const served = network.then(
    (response) => (response.status >= 500 ? undefined : response),
    () => undefined,
  );
  const late = new Promise((resolve) => setTimeout(resolve, NETWORK_WAIT_MS));
  const answer = await Promise.race([served, late]);
  if (answer) return answer;
  const kept = await caches.match(path);
  if (kept) return kept;
  return network.catch(() => Response.error());
}

/**
 * An object's own fields, read as unknown (a map: no member of Object.prototype is one of them);
 * none for anything else.
 * @returns {Map<string, unknown>}
 */
function fieldsOf(/** @type {unknown} */ value) {
  return new Map(typeof value === 'object' && value !== null ? Object.entries(value) : []);
}
const textOf = (/** @type {unknown} */ value) => (typeof value === 'string' ? value : undefined);

/**
 * What a push says, whatever came: a payload that cannot be read is still shown, and a part of
 * it that is not what the server sends (a title that is not text) is left out.
 */
function shownOf(/** @type {PushEvent} */ event) {
  /** @type {unknown} */
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const shown = fieldsOf(fieldsOf(data).get('notification'));
  const foxbell = fieldsOf(fieldsOf(data).get('foxbell'));
  const tag = textOf(shown.get('tag'));
  const badge = shown.get('app_badge');
  const id = textOf(foxbell.get('id')) ?? null;
  return {
    title: textOf(shown.get('title')) ?? textOf(foxbell.get('sender')) ?? 'Foxbell',
    options: {
      body:
        textOf(shown.get('body')) ?? (event.data ? '' : 'Something was sent to you. Open Foxbell to see it.'),
      ...(tag ? { tag, renotify: true } : {}),
      silent: shown.get('silent') === true,
      icon: '/app/icon-192.png',
      badge: '/app/icon-192.png',
      data: { id },
    },
    badge: typeof badge === 'number' ? badge : undefined,
    id,
  };
}

worker.addEventListener('push', (event) => {
  const { title, options, badge, id } = shownOf(event);
  event.waitUntil(
    (async () => {
      // First and always: the notification. Nothing below may keep it from showing.
      await worker.registration.showNotification(title, options);
      if (badge !== undefined) await worker.navigator.setAppBadge?.(badge).catch(() => {});
      const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const window of windows) window.postMessage({ type: 'push', id });
    })(),
  );
});

/** A tapped notification: the app's page for it, in the app's window if one is open. */
async function openNotification(/** @type {string | null} */ id) {
  const url = new URL(id ? `/app/?notification=${encodeURIComponent(id)}` : '/app/', worker.location.origin)
    .href;
  const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).pathname.startsWith('/app/'));
  if (open) {
    await open.navigate(url);
    // Rejected without a tap behind it (a browser allows focus only from a notification click).
    return open.focus().catch(() => open);
  }
  return worker.clients.openWindow(url);
}

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openNotification(textOf(fieldsOf(event.notification.data).get('id')) ?? null));
});
