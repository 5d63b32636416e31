// The Foxbell web app's service worker: shows each push as a system notification with the
// sender's name, and opens the app's page for it when tapped. Where Safari understands Declarative
// Web Push (iOS 18.4 and later) it shows the push itself; this shows it everywhere else, and
// draws its own where the payload allows (`mutable`).

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  const shown = data.notification ?? {};
  const foxbell = data.foxbell ?? {};
  const title = shown.title ?? foxbell.sender ?? 'Foxbell';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: shown.body ?? '',
      ...(shown.tag ? { tag: shown.tag } : {}),
      silent: shown.silent === true,
      icon: '/app/icon-192.png',
      data: { id: foxbell.id ?? null },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const id = event.notification.data?.id;
  const url = new URL(id ? `/app/?notification=${encodeURIComponent(id)}` : '/app/', self.location.origin)
    .href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).pathname.startsWith('/app/'));
      if (open) {
        await open.navigate(url);
        return open.focus();
      }
      return self.clients.openWindow(url);
    })(),
  );
});
