// The Foxbell web app: a person's device, linked to their account with a code, receiving what is
// sent to them by Web Push. No framework and no build of its own: the server serves these files
// as they are, and the SDK's device client as one bundled module. Text from a notification only
// ever goes in through textContent, and no message of the API reaches the person: every failure
// is said in the app's own words (`explain`).

import { FoxbellDevice } from '/app/device.js';
import { bellColor, drawScene } from '/app/scenes.js';

const SAVED = 'foxbell.device';
/** The last inbox page read, shown at once on the next open, and when the server cannot be reached. */
const KEPT_INBOX = 'foxbell.inbox';
/** After this long, turning notifications on says it is slow and offers a way out. */
const SLOW_MS = 8000;
const $ = (id) => document.getElementById(id);

// ---- What this installation keeps ----------------------------------------------------------

/** Its own id, the link being made (and what for), then its key, device id and name. */
function saved() {
  try {
    return JSON.parse(localStorage.getItem(SAVED) ?? '{}');
  } catch {
    return {};
  }
}
function save(change) {
  const next = { ...saved(), ...change };
  localStorage.setItem(SAVED, JSON.stringify(next));
  return next;
}

function clientId() {
  const kept = saved().clientId;
  if (kept) return kept;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const made = `web-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  save({ clientId: made });
  return made;
}

function device() {
  const { key, deviceId } = saved();
  return new FoxbellDevice({ baseUrl: location.origin, deviceKey: key, deviceId });
}

// ---- Saying things -------------------------------------------------------------------------

let retrying;
/** One line of news, with a "Try again" button when `retry` is given. */
function say(text, retry) {
  $('status-text').textContent = text;
  $('status').hidden = text === '';
  retrying = retry;
  $('status-retry').hidden = retry === undefined;
}
$('status-retry').addEventListener('click', () => {
  const again = retrying;
  say('');
  void again?.();
});

const SCREENS = ['install', 'insecure', 'unsupported', 'setup', 'denied', 'linking', 'inbox', 'settings'];
function show(...screens) {
  for (const id of SCREENS) $(id).hidden = !screens.includes(id);
}

function minutes(seconds) {
  const count = Math.max(1, Math.ceil((seconds ?? 60) / 60));
  return count === 1 ? 'a minute' : `${count} minutes`;
}

/** Why something failed, as the person can act on it: never the API's own message. */
function explain(error) {
  const code = error?.code;
  const retryAfter = error?.retryAfter;
  switch (code) {
    case 'connection_error':
      return navigator.onLine === false
        ? "You're offline. Connect to the internet, then try again."
        : "Foxbell's server cannot be reached right now. Check your connection, then try again.";
    case 'timeout':
      return "Foxbell's server did not answer in time. Try again in a moment.";
    case 'service_unavailable':
    case 'internal_error':
      return "Foxbell's server is having trouble. Try again in a moment.";
    case 'rate_limited':
      return `Too many tries from here. Wait ${minutes(retryAfter)}, then try again.`;
    case 'not_found':
      return 'No device is showing that code. Check it: codes have no 0, O, 1, I or L.';
    case 'link_expired':
      return 'That code has expired. Make a new one on the other device.';
    case 'link_not_pending':
      return 'That code was already used or cancelled. Make a new one on the other device.';
    case 'link_superseded':
      return 'That device made a newer code. Approve the newest one.';
    case 'link_locked':
      return `Too many wrong codes. You can approve again in ${minutes(retryAfter)}.`;
    case 'limit_reached':
      return error?.details?.limit === 'link_approvals'
        ? `Your account linked 5 devices in the last 10 minutes. Try again in ${minutes(retryAfter)}.`
        : 'Your account has 20 devices already. Remove one you no longer use, then try again.';
    case 'device_exists':
      return 'This device is already linked, or waiting for a code to be approved. Open Foxbell where it was linked, or remove it there first.';
    case 'source_rejected':
      return "This device's link to its account no longer works, so it cannot move. Link it again instead.";
    case 'token_revoked':
    case 'unauthorized':
      return 'This device was removed from its account, or moved to another. Link it again.';
    case 'account_deleted':
      return "This device's account was deleted. Link it to another account.";
    case 'account_merged':
      return "This device's account was joined into another. Link it again.";
    case 'invalid_field':
    case 'missing_field':
      return error?.field === 'name'
        ? 'A device name is 1 to 64 characters, without line breaks.'
        : error?.field === 'code'
          ? 'A code is 8 letters and digits, as XXXX-XXXX.'
          : 'Foxbell could not take that. Check it and try again.';
    default:
      return 'Something went wrong. Try again in a moment.';
  }
}

/** The name of a device of this kind, to start with. */
function guessName() {
  const ua = navigator.userAgent;
  if (/iPhone/.test(ua)) return 'iPhone';
  if (/iPad/.test(ua)) return 'iPad';
  if (/Android/.test(ua)) return 'Android phone';
  return 'Browser';
}

// ---- Before linking: can this device receive at all? ---------------------------------------

const isAppleMobile = () =>
  /iPhone|iPad|iPod/.test(navigator.userAgent) ||
  (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
const fromHomeScreen = () =>
  navigator.standalone === true || matchMedia('(display-mode: standalone)').matches;
const canPush = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** What stops this page from receiving, in the order a person must fix it; undefined when nothing. */
function obstacle() {
  if (!window.isSecureContext) return 'insecure';
  if (isAppleMobile() && !fromHomeScreen()) return 'install';
  if (!canPush()) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  return undefined;
}

function showObstacle(which) {
  if (which === 'insecure') $('insecure-address').textContent = location.origin;
  if (which === 'unsupported' && isAppleMobile()) {
    $('unsupported-text').textContent =
      'This iPhone needs iOS 16.4 or later to receive notifications from a web app. Update it in Settings, General, Software Update, then open Foxbell again.';
  }
  show(which);
}

async function start() {
  const state = saved();
  // A link being made comes first: a device moving to another account has a key already.
  if (state.link) return showLinking(state.link);
  if (state.key) return showLinked();
  const problem = obstacle();
  if (problem) return showObstacle(problem);
  $('name').value = state.name ?? guessName();
  show('setup');
}

// ---- Turning notifications on and asking to be linked --------------------------------------

/** Counts attempts: a cancelled one that finishes later changes nothing. */
let attempt = 0;

async function subscription(registration, client) {
  const current = await registration.pushManager.getSubscription();
  if (current) return current;
  return registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: await client.webPushKey(),
  });
}

function progress(on) {
  $('setup-progress').hidden = !on;
  $('setup-form').hidden = on;
  $('setup-cancel').hidden = true;
  $('setup-progress-text').textContent = 'Turning on notifications…';
}

async function turnOn() {
  const name = $('name').value.trim();
  if (!name) return;
  save({ name });
  say('');
  const mine = ++attempt;
  progress(true);
  const slow = setTimeout(() => {
    $('setup-progress-text').textContent =
      'This is taking longer than it should. You can wait, or cancel and try again.';
    $('setup-cancel').hidden = false;
  }, SLOW_MS);
  try {
    // Asked from the tap: iOS asks only then, and only in a web app opened from the Home Screen.
    const permission = await Notification.requestPermission();
    if (mine !== attempt) return;
    if (permission === 'denied') return show('denied');
    if (permission !== 'granted') {
      return say('Notifications were not allowed. Tap "Turn on notifications" to be asked again.');
    }
    const registration = await navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' });
    await navigator.serviceWorker.ready;
    const client = device();
    const subscribed = await subscription(registration, client);
    if (mine !== attempt) return;
    const link = await client.requestLink({
      deviceId: clientId(),
      name,
      platform: 'ios',
      push: { webPush: subscribed.toJSON() },
    });
    if (mine !== attempt) return;
    save({ link, linkFor: 'join', subscribedTo: subscribed.endpoint });
    showLinking(link);
  } catch (error) {
    if (mine === attempt) say(explain(error), turnOn);
  } finally {
    clearTimeout(slow);
    if (mine === attempt) progress(false);
  }
}

$('setup-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void turnOn();
});
$('setup-cancel').addEventListener('click', () => {
  attempt += 1;
  progress(false);
  say('Cancelled. Check that this device is online, then try again.', turnOn);
});
$('denied-retry').addEventListener('click', () => {
  say('');
  if (Notification.permission === 'denied') {
    return say('Notifications are still off for Foxbell. Turn them on in Settings first.');
  }
  void start();
});

let polling;
function showLinking(link) {
  show('linking');
  const moving = saved().linkFor === 'move';
  $('linking-title').textContent = moving ? 'Approve the move with this code' : 'Approve this code';
  $('linking-how').textContent = moving
    ? 'Approve it from the account you are moving to: in Foxbell on one of its devices, under "Link another device", or ask whoever runs that account.'
    : 'Approve it from a device that is already yours: in Foxbell there, under "Link another device". Or ask whoever runs your Foxbell to approve it.';
  $('code').textContent = link.code;
  const until = new Date(link.expiresAt);
  $('code-expiry').textContent =
    `It works until ${until.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}.`;
  clearInterval(polling);
  polling = setInterval(() => poll(link), 2000);
  void poll(link);
}

async function poll(link) {
  try {
    const status = await device().pollLink(link);
    say('');
    if (status.linked) {
      clearInterval(polling);
      const moved = saved().linkFor === 'move';
      save({
        link: undefined,
        linkFor: undefined,
        key: status.linked.deviceKey,
        deviceId: status.linked.device.id,
        name: status.linked.device.name,
        endpoint: saved().subscribedTo,
      });
      say(
        moved
          ? 'Moved. What is sent to you in the new account now arrives here.'
          : 'Linked. What is sent to you now arrives here.',
      );
      return showLinked();
    }
    if (status.state !== 'pending') {
      clearInterval(polling);
      save({ link: undefined, linkFor: undefined });
      say(
        status.state === 'expired'
          ? 'The code expired before it was approved. Make a new one.'
          : status.state === 'superseded'
            ? 'This device was linked another way meanwhile. Make a new code.'
            : 'The link was cancelled.',
      );
      return start();
    }
  } catch (error) {
    say(explain(error));
  }
}

$('cancel-link').addEventListener('click', async () => {
  const { link } = saved();
  clearInterval(polling);
  if (link)
    await device()
      .cancelLink(link)
      .catch(() => {});
  save({ link: undefined, linkFor: undefined });
  say('');
  void start();
});

// ---- Linked: the inbox, kept current ----------------------------------------------------------

let cursor = null;
const loaded = new Map();

async function showLinked() {
  show('inbox', 'settings');
  $('device-name').textContent = saved().name ?? '';
  $('rename').value = saved().name ?? '';
  // What was read last time, at once: the fresh page replaces it when it comes.
  renderInbox(keptInbox(), null);
  await refresh();
  await checkDevice();
  const wanted = new URLSearchParams(location.search).get('notification');
  if (wanted) await openById(wanted);
}

function keptInbox() {
  try {
    return JSON.parse(localStorage.getItem(KEPT_INBOX) ?? '[]');
  } catch {
    return [];
  }
}

function renderInbox(items, next) {
  loaded.clear();
  $('items').replaceChildren(
    ...items.map((item) => {
      loaded.set(item.id, item);
      return itemRow(item);
    }),
  );
  cursor = next;
  $('more').hidden = !cursor;
  $('empty').hidden = loaded.size > 0;
}

/** The newest page, read again: on open, on return to the app, and when a push arrives. */
async function refresh() {
  if (!saved().key) return;
  try {
    const page = await device().inbox({ limit: 30 });
    renderInbox(page.items, page.nextCursor);
    localStorage.setItem(KEPT_INBOX, JSON.stringify(page.items));
    offline(false);
    // Seen: the app is open (the server counts the badge from this moment on).
    await navigator.clearAppBadge?.().catch(() => {});
  } catch (error) {
    if (error?.code === 'token_revoked' || error?.code === 'unauthorized') {
      say(explain(error));
      return forget();
    }
    if (error?.code === 'connection_error' || error?.code === 'timeout') {
      offline(true);
      if (navigator.onLine !== false) say(explain(error), refresh);
      return;
    }
    say(explain(error), refresh);
  }
}

function offline(on) {
  $('offline').hidden = !on;
}

async function loadOlder() {
  try {
    const page = await device().inbox({ cursor: cursor ?? undefined, limit: 30 });
    for (const item of page.items) {
      loaded.set(item.id, item);
      $('items').append(itemRow(item));
    }
    cursor = page.nextCursor;
    $('more').hidden = !cursor;
  } catch (error) {
    say(explain(error), loadOlder);
  }
}
$('more').addEventListener('click', () => loadOlder());

/**
 * Whether pushes still reach this device: the server's word (its push service said the
 * subscription is gone), the browser's (permission taken back, subscription replaced or dropped:
 * a new one is registered at once), shown with a way back when they do not.
 */
async function checkDevice() {
  if (!saved().key || !canPush()) return;
  if (Notification.permission === 'denied') {
    return stopped(
      'Notifications are off for Foxbell in this device’s settings, so nothing new shows up. Turn them on in Settings, Notifications, Foxbell.',
      false,
    );
  }
  try {
    const registration = await navigator.serviceWorker.getRegistration('/app/');
    const current = await registration?.pushManager.getSubscription();
    const me = await device().me();
    if (!me.active) {
      return stopped('Notifications stopped reaching this device: its subscription is gone.', true);
    }
    if (current && current.endpoint === saved().endpoint) return stopped('', false);
    // The browser replaced or dropped the subscription: the new one is registered.
    await renew(registration, current);
    stopped('', false);
  } catch (error) {
    if (error?.code === 'connection_error' || error?.code === 'timeout') return;
    stopped('Notifications stopped reaching this device.', true);
  }
}

function stopped(text, offerRenewal) {
  $('stopped').hidden = text === '';
  $('stopped-text').textContent = text;
  $('resubscribe').hidden = !offerRenewal;
}

/** A subscription registered anew: the current one if the browser has one, else a fresh one. */
async function renew(registration, current) {
  const ready = registration ?? (await navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }));
  const client = device();
  const fresh =
    current ??
    (await ready.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: await client.webPushKey(),
    }));
  await client.update({ push: { webPush: fresh.toJSON() } });
  save({ endpoint: fresh.endpoint });
}

$('resubscribe').addEventListener('click', async () => {
  try {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted')
      return stopped(
        'Notifications are off for Foxbell in this device’s settings. Turn them on in Settings, Notifications, Foxbell.',
        false,
      );
    const registration = await navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' });
    // The old subscription is the one that stopped working: a new one, not it again.
    await (await registration.pushManager.getSubscription())?.unsubscribe().catch(() => {});
    await renew(registration, null);
    stopped('', false);
    say('Notifications are on again.');
  } catch (error) {
    say(explain(error));
  }
});

function itemRow(item) {
  const row = $('item').content.firstElementChild.cloneNode(true);
  row.dataset.id = item.id;
  row.querySelector('.sender').textContent = item.sender;
  row.querySelector('.title').textContent = item.title ?? '';
  row.querySelector('.message').textContent = item.message;
  const when = row.querySelector('.when');
  when.dateTime = item.created_at;
  when.textContent = new Date(item.created_at).toLocaleString([], {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  // Named for what they act on: a screen reader lists many of them.
  row.querySelector('.clear').setAttribute('aria-label', `Clear the notification from ${item.sender}`);
  row.querySelector('.open').addEventListener('click', () => openItem(item));
  row.querySelector('.clear').addEventListener('click', async () => {
    await device()
      .report(item.id, 'cleared')
      .catch(() => {});
    row.remove();
    loaded.delete(item.id);
    localStorage.setItem(KEPT_INBOX, JSON.stringify([...loaded.values()]));
    $('empty').hidden = $('items').children.length > 0;
  });
  return row;
}

/** The notification a tap opened: looked up in the inbox, a few pages back at most. */
async function openById(id) {
  for (let pages = 0; !loaded.has(id) && cursor && pages < 5; pages += 1) await loadOlder();
  const item = loaded.get(id);
  history.replaceState(null, '', '/app/');
  if (item) await openItem(item);
}

/** Plays the notification's scene full screen, with its whole text and its link as a button. */
async function openItem(item) {
  drawScene($('scene-art'), item.scene, item.scene_params ?? {}, bellColor(item.bell_color), { stage: true });
  $('scene-sender').textContent = item.sender;
  $('scene-title').textContent = item.title ?? '';
  $('scene-message').textContent = item.message;
  const link = item.url ? URL.parse(item.url) : null;
  $('scene-link').hidden = !link;
  $('scene-link').replaceChildren();
  if (link) {
    // A button of its own, never opened by itself; domain first: the person sees where it goes
    // before what it says.
    const button = document.createElement('a');
    button.className = 'button';
    button.href = link.href;
    button.rel = 'noopener noreferrer';
    button.target = '_blank';
    button.textContent = item.url_title ? `${link.hostname} — ${item.url_title}` : `Open ${link.hostname}`;
    $('scene-link').append(button);
  }
  $('scene').showModal();
  $('scene-close').focus();
  await device()
    .report(item.id, 'opened')
    .catch(() => {});
}

// ---- This device ------------------------------------------------------------------------------

$('rename-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const updated = await device().update({ name: $('rename').value.trim() });
    save({ name: updated.name });
    $('device-name').textContent = updated.name;
    say('Renamed.');
  } catch (error) {
    say(explain(error));
  }
});

$('approve-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const linked = await device().approve($('approve').value);
    $('approve').value = '';
    say(`${linked.name} is linked to your account.`);
  } catch (error) {
    say(explain(error));
  }
});

/**
 * Moves this device to another account: a link request with its key for this one as proof, whose
 * code the other account approves. The person is asked before an account still in use is left.
 */
$('switch').addEventListener('click', async () => {
  if (!confirm('Move this device to another account? You approve its code from that account.')) return;
  const registration = await navigator.serviceWorker.getRegistration('/app/');
  const current = await registration?.pushManager.getSubscription();
  if (!current) return say('Notifications are off on this device. Turn them on again first.');
  const asked = {
    deviceId: clientId(),
    name: saved().name ?? guessName(),
    platform: 'ios',
    push: { webPush: current.toJSON() },
    source: { deviceKey: saved().key },
  };
  try {
    let link;
    try {
      link = await device().requestLink(asked);
    } catch (error) {
      if (error?.code !== 'source_in_use') throw error;
      const { token_count: tokens, other_devices: devices } = error.details ?? {};
      const question = `Your current account still has ${tokens} send ${tokens === 1 ? 'token' : 'tokens'} and ${devices} other ${devices === 1 ? 'device' : 'devices'}. Leave it anyway?`;
      if (!confirm(question)) return;
      link = await device().requestLink({ ...asked, sourceInUse: 'leave' });
    }
    save({ link, linkFor: 'move', subscribedTo: current.endpoint });
    say('');
    showLinking(link);
  } catch (error) {
    say(explain(error));
  }
});

$('leave').addEventListener('click', async () => {
  if (!confirm('Remove this device from your account? It stops receiving notifications.')) return;
  try {
    await device().leave();
  } catch (error) {
    if (error?.code !== 'token_revoked') return say(explain(error));
  }
  // The browser's subscription goes too; the device has left whether or not that works.
  const registration = await navigator.serviceWorker.getRegistration('/app/');
  await (await registration?.pushManager.getSubscription())?.unsubscribe().catch(() => {});
  forget();
  say('This device left its account. Link it again to receive notifications here.');
});

function forget() {
  save({ key: undefined, deviceId: undefined, link: undefined, linkFor: undefined, endpoint: undefined });
  localStorage.removeItem(KEPT_INBOX);
  $('device-name').textContent = '';
  stopped('', false);
  offline(false);
  loaded.clear();
  void start();
}

// ---- Staying current ----------------------------------------------------------------------------

// A push shown by the service worker is added to an open inbox at once.
navigator.serviceWorker?.addEventListener('message', (event) => {
  if (event.data?.type === 'push') void refresh();
});
// Back to the app: what came meanwhile, and whether pushes still reach it.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && saved().key) {
    void refresh();
    void checkDevice();
  }
});
addEventListener('online', () => {
  offline(false);
  if (saved().key) void refresh();
});
addEventListener('offline', () => {
  if (saved().key) offline(true);
});

if (canPush() && window.isSecureContext) {
  void navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch(() => {});
}
void start();
