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

/** A tapped notification: the app's page for it, in the app's window if one is open. */
async function openNotification(id) {
  const url = new URL(id ? `/app/?notification=${encodeURIComponent(id)}` : '/app/', self.location.origin)
    .href;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).pathname.startsWith('/app/'));
  if (open) {
    await open.navigate(url);
    // Refused without a tap behind it (a browser allows focus only from a notification click).
    return open.focus().catch(() => open);
  }
  return self.clients.openWindow(url);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openNotification(event.notification.data?.id));
});
