// The Foxbell web app: a person's device, linked to their account with a code, receiving what is
// sent to them by Web Push. No framework and no build of its own: the server serves these files
// as they are, and the SDK's device client as one bundled module. Text from a notification only
// ever goes in through textContent.

import { FoxbellDevice } from '/app/device.js';
import { bellColor, drawScene } from '/app/scenes.js';

const SAVED = 'foxbell.device';
const $ = (id) => document.getElementById(id);
const statusEl = $('status');

/** What this installation keeps: its own id, the link being made, then its key and device id. */
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

function say(text) {
  statusEl.textContent = text;
}

function show(...sections) {
  for (const id of ['setup', 'linking', 'inbox', 'settings']) $(id).hidden = !sections.includes(id);
}

/** A failure as a person can act on it. */
function explain(error) {
  if (error?.code === 'token_revoked' || error?.code === 'unauthorized') {
    return 'This device was removed from its account. Link it again.';
  }
  if (error?.code === 'rate_limited' || error?.code === 'link_locked') return `${error.message}.`;
  if (error?.kind === 'ConnectionError') return 'Foxbell cannot be reached. Check the connection.';
  return error?.message ? `${error.message}.` : 'Something went wrong.';
}

async function start() {
  const state = saved();
  // A link being made comes first: a device moving to another account has a key already.
  if (state.link) return showLinking(state.link);
  if (state.key) return showLinked();
  $('name').value = state.name ?? guessName();
  show('setup');
}

function guessName() {
  const ua = navigator.userAgent;
  if (/iPhone/.test(ua)) return 'iPhone';
  if (/iPad/.test(ua)) return 'iPad';
  return 'Browser';
}

$('setup-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = $('name').value.trim();
  if (!name) return;
  save({ name });
  try {
    // Asked from the tap: iOS asks only then, and only in a web app opened from the Home Screen.
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      say('Notifications are off for this app. Allow them in Settings, then try again.');
      return;
    }
    const registration = await navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' });
    await navigator.serviceWorker.ready;
    const client = device();
    const subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: await client.webPushKey(),
    });
    save({ subscribedTo: subscription.endpoint });
    const link = await client.requestLink({
      deviceId: clientId(),
      name,
      platform: 'ios',
      push: { webPush: subscription.toJSON() },
    });
    save({ link });
    showLinking(link);
  } catch (error) {
    say(explain(error));
  }
});

let polling;
function showLinking(link) {
  show('linking');
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
    if (status.linked) {
      clearInterval(polling);
      save({
        link: undefined,
        key: status.linked.deviceKey,
        deviceId: status.linked.device.id,
        name: status.linked.device.name,
        endpoint: saved().subscribedTo,
      });
      say('Linked. What is sent to you now arrives here.');
      return showLinked();
    }
    if (status.state !== 'pending') {
      clearInterval(polling);
      save({ link: undefined });
      say(
        status.state === 'expired'
          ? 'The code expired. Make a new one.'
          : `The link request was ${status.state}.`,
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
  save({ link: undefined });
  say('');
  void start();
});

let cursor = null;
async function showLinked() {
  show('inbox', 'settings');
  $('device-name').textContent = saved().name ?? '';
  $('rename').value = saved().name ?? '';
  $('items').replaceChildren();
  cursor = null;
  await loadInbox();
  await checkSubscription();
  const wanted = new URLSearchParams(location.search).get('notification');
  if (wanted) await openById(wanted);
}

/**
 * The push address this device registered, checked each time the app opens: a subscription the
 * browser replaced or dropped is registered again, so pushes keep arriving.
 */
async function checkSubscription() {
  const registration = await navigator.serviceWorker?.getRegistration('/app/');
  if (!registration || Notification.permission !== 'granted') return;
  const current = await registration.pushManager.getSubscription();
  if (current && current.endpoint === saved().endpoint) return;
  try {
    const client = device();
    const subscription =
      current ??
      (await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: await client.webPushKey(),
      }));
    await client.update({ push: { webPush: subscription.toJSON() } });
    save({ endpoint: subscription.endpoint });
  } catch (error) {
    say(explain(error));
  }
}

const loaded = new Map();
async function loadInbox() {
  try {
    const page = await device().inbox({ cursor: cursor ?? undefined, limit: 30 });
    for (const item of page.items) {
      loaded.set(item.id, item);
      $('items').append(itemRow(item));
    }
    cursor = page.nextCursor;
    $('more').hidden = !cursor;
    $('empty').hidden = loaded.size > 0;
  } catch (error) {
    if (error?.code === 'token_revoked') forget();
    say(explain(error));
  }
}
$('more').addEventListener('click', () => loadInbox());

function itemRow(item) {
  const row = $('item').content.firstElementChild.cloneNode(true);
  row.dataset.id = item.id;
  row.querySelector('.sender').textContent = item.sender;
  row.querySelector('.title').textContent = item.title ?? '';
  row.querySelector('.message').textContent = item.message;
  const when = row.querySelector('.when');
  when.dateTime = item.created_at;
  when.textContent = new Date(item.created_at).toLocaleString();
  // Named for what they act on: a screen reader lists many of them.
  row.querySelector('.clear').setAttribute('aria-label', `Clear the notification from ${item.sender}`);
  row.querySelector('.open').addEventListener('click', () => openItem(item));
  row.querySelector('.clear').addEventListener('click', async () => {
    await device()
      .report(item.id, 'cleared')
      .catch(() => {});
    row.remove();
    $('empty').hidden = $('items').children.length > 0;
  });
  return row;
}

/** The notification a tap opened: looked up in the inbox, a few pages back at most. */
async function openById(id) {
  for (let pages = 0; !loaded.has(id) && cursor && pages < 5; pages += 1) await loadInbox();
  const item = loaded.get(id);
  if (item) await openItem(item);
  history.replaceState(null, '', '/app/');
}

/** Plays the notification's scene full screen, with its whole text and its link as a button. */
async function openItem(item) {
  drawScene($('scene-art'), item.scene, item.scene_params ?? {}, bellColor(item.bell_color));
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
  const subscription = await registration?.pushManager.getSubscription();
  if (!subscription) return say('Turn notifications on again first.');
  const asked = {
    deviceId: clientId(),
    name: saved().name ?? guessName(),
    platform: 'ios',
    push: { webPush: subscription.toJSON() },
    source: { deviceKey: saved().key },
  };
  try {
    let link;
    try {
      link = await device().requestLink(asked);
    } catch (error) {
      if (error?.code !== 'source_in_use') throw error;
      const { token_count: tokens, other_devices: devices } = error.details ?? {};
      const question = `This account still has ${tokens} send tokens and ${devices} other devices. Leave it anyway?`;
      if (!confirm(question)) return;
      link = await device().requestLink({ ...asked, sourceInUse: 'leave' });
    }
    save({ link });
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
  say('This device left its account.');
});

function forget() {
  save({ key: undefined, deviceId: undefined, link: undefined, endpoint: undefined });
  loaded.clear();
  void start();
}

if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' });
void start();
