// The device page: the dev account's simulated devices, each showing what the APNs simulator
// received for its push token, live over server-sent events. No framework and no build: the server
// serves this file as it is. Text from a notification only ever goes in through textContent.

import { bellColor, drawScene } from '/app/scenes.js';

const PLATFORM_CLASS = { ios: 'phone', watchos: 'watch', visionos: 'headset' };
const FINAL_STATES = new Set(['accepted', 'failed_permanent', 'expired', 'superseded', 'skipped']);
const STATE_WORDS = {
  pending: 'waiting',
  sending: 'sending',
  accepted: 'delivered',
  failed_permanent: 'failed',
  expired: 'expired',
  superseded: 'replaced',
  skipped: 'skipped',
};

const devicesEl = document.getElementById('devices');
const connectionEl = document.getElementById('connection');
const template = document.getElementById('notification');

/** @type {{ account_key: string, simulator: boolean, devices: { id: string, name: string, platform: string, push_token: string }[] }} */
let session;
/** Per device id: its list element and its cards by collapse id. */
const screens = new Map();
/** Per notification id: every card showing it (one per device). */
const cards = new Map();
/** Notification records by id, from /dev/notifications/:id. */
const records = new Map();
/** Device names by id, once the session is read. */
let deviceNames = new Map();
/** Scene names by id, from the catalog: an untitled notification shows its scene's name. */
const sceneNames = {
  notice: 'Notice',
  rocket: 'Rocket',
  fireworks: 'Fireworks',
  garage: 'Garage',
  campfire: 'Campfire',
};
/** True while the push stream is open and its history drawn. */
let live = false;
/** The next wait before reconnecting, and between polls: doubled on each failure, up to 30 s. */
const backoff = { stream: 1000, poll: 2000 };
const MAX_WAIT_MS = 30_000;
const POLL_MS = 2000;

const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

async function start() {
  const response = await fetch('/dev/session').catch(() => undefined);
  if (!response?.ok) {
    connectionEl.textContent = response
      ? 'The dev account is not ready yet: trying again…'
      : 'The server is not responding: trying again…';
    setTimeout(start, backoff.stream);
    backoff.stream = Math.min(backoff.stream * 2, MAX_WAIT_MS);
    return;
  }
  backoff.stream = 1000;
  session = await response.json();
  deviceNames = new Map(session.devices.map((device) => [device.id, device.name]));
  for (const device of session.devices) drawDevice(device);
  readSceneNames();
  listen();
  setTimeout(refreshRecords, POLL_MS);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) refreshRecords();
  });
}

// Links a device (the web app in a browser, a phone) to the dev account by the code it shows, and
// draws it beside the simulated ones.
document.getElementById('link-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('link-code');
  const result = document.getElementById('link-result');
  const response = await fetch('/v1/link-approvals', {
    method: 'POST',
    headers: { authorization: `Bearer ${session.account_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: input.value }),
  }).catch(() => undefined);
  const body = await response?.json().catch(() => undefined);
  if (!response?.ok) {
    result.textContent = body?.error?.message ?? 'The server is not responding';
    return;
  }
  input.value = '';
  result.textContent = `${body.device.name} is linked`;
  deviceNames.set(body.device.id, body.device.name);
  // Drawn as the session lists it (with when it was last seen, in the server's words).
  const listed = await fetch('/dev/session')
    .then((reply) => reply.json())
    .then((current) => current.devices.find((one) => one.id === body.device.id))
    .catch(() => undefined);
  drawDevice(listed ?? body.device);
  const screen = screens.get(body.device.id);
  if (screen) screen.empty.hidden = false;
});

async function readSceneNames() {
  try {
    const response = await fetch('/v1/scenes', {
      headers: { authorization: `Bearer ${session.account_key}` },
    });
    if (!response.ok) return;
    const catalog = await response.json();
    for (const scene of catalog.scenes ?? []) if (scene.id && scene.name) sceneNames[scene.id] = scene.name;
  } catch {
    // The built-in names stand.
  }
}

function drawDevice(device) {
  const section = el('section', `device ${PLATFORM_CLASS[device.platform] ?? 'phone'}`);
  section.dataset.deviceId = device.id;
  const heading = el('h2', 'device-name', device.name);
  heading.id = `name-${device.id}`;
  section.setAttribute('aria-labelledby', heading.id);
  // A real device says when its app was last seen; a stale one, that it may receive nothing.
  const seen = device.seen
    ? el('p', device.stale ? 'device-seen stale' : 'device-seen', device.seen)
    : undefined;
  const frame = el('div', 'frame');
  const screen = el('div', 'screen');
  const list = el('ol', 'list');
  list.setAttribute('aria-live', 'polite');
  list.setAttribute('aria-label', `Notifications on ${device.name}`);
  // Said only once the history is in: before that, "no notifications" may not be true.
  const empty = el(
    'p',
    'empty',
    device.active === false
      ? (device.inactive ?? 'Removed')
      : device.transport === 'web_push'
        ? 'Reached by Web Push: what is sent shows on the device itself'
        : 'No notifications yet',
  );
  empty.hidden = true;
  screen.append(empty, list);
  frame.append(screen);
  section.append(heading, ...(seen ? [seen] : []), frame);
  devicesEl.append(section);
  screens.set(device.id, { device, list, empty, byCollapseId: new Map(), threads: new Map() });
}

/**
 * The push stream: on each connection the server sends the recent history (from its database, so
 * it survives a restart), then `live`, then each new push. A lost connection is retried with a
 * growing wait, not the browser's fixed one.
 */
function listen() {
  const events = new EventSource('/dev/pushes');
  events.addEventListener('ready', (event) => {
    // A (re)connection sends the history again: start from a clean slate.
    for (const screen of screens.values()) {
      screen.list.replaceChildren();
      screen.byCollapseId.clear();
      screen.threads.clear();
      screen.empty.hidden = true;
    }
    cards.clear();
    records.clear();
    const { simulator } = JSON.parse(event.data);
    connectionEl.textContent = simulator
      ? 'Loading recent notifications…'
      : 'This server pushes to a real APNs endpoint, not the simulator: nothing to show here.';
    if (!simulator) events.close();
  });
  events.addEventListener('push', (event) => {
    const push = JSON.parse(event.data);
    if (push.status === 200) show(push);
  });
  events.addEventListener('live', () => {
    live = true;
    backoff.stream = 1000;
    connectionEl.textContent = 'Live: showing what the APNs simulator delivers.';
    for (const screen of screens.values()) screen.empty.hidden = screen.list.children.length > 0;
  });
  events.addEventListener('error', () => {
    events.close();
    live = false;
    const wait = backoff.stream;
    backoff.stream = Math.min(wait * 2, MAX_WAIT_MS);
    connectionEl.textContent = `Connection lost: trying again in ${Math.round(wait / 1000)} s…`;
    setTimeout(listen, wait);
  });
}

/** A push the simulator accepted, drawn on its device's screen. */
function show(push) {
  const screen = screens.get(push.device_id);
  const aps = push.payload?.aps ?? {};
  const fox = push.payload?.foxbell ?? {};
  if (!screen || !fox.id) return;
  // The history and a push that arrived while it was read may both carry one push.
  if ((cards.get(fox.id) ?? []).some((shown) => shown.dataset.deviceId === push.device_id)) return;
  const card = template.content.firstElementChild.cloneNode(true);
  card.dataset.id = fox.id;
  card.dataset.deviceId = push.device_id;
  const level = aps['interruption-level'] ?? 'active';
  card.classList.add(`level-${level}`);
  card.setAttribute('aria-label', `${aps.alert?.title ?? 'Notification'} from ${fox.sender ?? 'a sender'}`);

  const bell = bellColor(fox.bell_color);
  card.style.setProperty('--bell', bell);
  drawScene(card.querySelector('.scene'), fox.scene, fox.scene_params ?? {}, bell);
  card.querySelector('.sender').textContent = fox.sender ?? '';
  const time = card.querySelector('time');
  time.dateTime = push.at;
  time.textContent = new Date(push.at).toLocaleTimeString();
  const title = card.querySelector('.title');
  title.textContent = aps.alert?.title ?? '';
  // Without a title of its own the app shows the scene's name: drawn as a label, not as text the
  // sender wrote.
  title.classList.toggle('untitled', aps.alert?.title === sceneNames[fox.scene]);
  const subtitle = card.querySelector('.subtitle');
  subtitle.textContent = aps.alert?.subtitle ?? '';
  subtitle.hidden = !aps.alert?.subtitle;
  const body = card.querySelector('.body');
  body.textContent = aps.alert?.body ?? '';

  const extras = card.querySelector('.extras');
  if (level !== 'active')
    extras.append(el('span', 'badge level', level === 'passive' ? 'Quiet' : 'Time Sensitive'));
  if (aps.sound === undefined) extras.append(el('span', 'badge', 'Silent'));
  if (fox.truncated) extras.append(el('span', 'badge', 'Shortened to fit'));
  if (fox.url) extras.append(linkButton(fox.url, fox.url_title));
  if (fox.image) extras.append(imageHolder(fox.image));

  for (const action of ['open', 'clear']) {
    card.querySelector(`.${action}`).addEventListener('click', () => report(card, action));
  }
  place(screen, card, push.headers?.['apns-collapse-id'], aps['thread-id']);
  offerMore(body);
  const shown = cards.get(fox.id) ?? [];
  shown.push(card);
  cards.set(fox.id, shown);
  refreshRecord(fox.id);
}

/** A long message is shown a few lines deep, with a button for the rest. */
function offerMore(body) {
  body.classList.add('clamped');
  requestAnimationFrame(() => {
    if (body.scrollHeight <= body.clientHeight + 1) {
      body.classList.remove('clamped');
      return;
    }
    const more = el('button', 'more', 'Show more');
    more.type = 'button';
    more.setAttribute('aria-expanded', 'false');
    more.addEventListener('click', () => {
      const open = body.classList.toggle('clamped') === false;
      more.textContent = open ? 'Show less' : 'Show more';
      more.setAttribute('aria-expanded', String(open));
    });
    body.after(more);
  });
}

/** Puts a card at the top of its screen, in its thread, in place of the one it replaces. */
function place(screen, card, collapseId, threadId) {
  screen.empty.hidden = true;
  if (collapseId) {
    const replaced = screen.byCollapseId.get(collapseId);
    if (replaced) {
      replaced.closest('li')?.remove();
      card.querySelector('.extras').prepend(el('span', 'badge', 'Replaced an earlier one'));
    }
    screen.byCollapseId.set(collapseId, card);
  }
  const item = el('li', 'item');
  item.append(card);
  if (!threadId) {
    screen.list.prepend(item);
    return;
  }
  let thread = screen.threads.get(threadId);
  if (!thread?.isConnected) {
    thread = el('li', 'thread');
    thread.append(el('h4', 'thread-name', threadId), el('ol', 'thread-list'));
    screen.threads.set(threadId, thread);
  }
  const list = thread.querySelector('.thread-list');
  list.prepend(item);
  thread.querySelector('.thread-name').textContent = `${threadId} · ${list.children.length}`;
  screen.list.prepend(thread);
}

/** The link button: the domain first, and it opens only when pressed, never by tapping the card. */
function linkButton(url, title) {
  const link = el('a', 'link');
  link.href = url;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  let host = url;
  try {
    host = new URL(url).host;
  } catch {}
  link.title = url;
  link.append(el('strong', 'domain', host), el('span', 'link-title', ` ${title ?? 'Open link'}`));
  return link;
}

/** The image stays unloaded (the page makes no request elsewhere) until the user asks for it. */
function imageHolder(url) {
  const figure = el('figure', 'image');
  let host = url;
  try {
    host = new URL(url).host;
  } catch {}
  const caption = el('figcaption', '', `Image from ${host}`);
  const button = el('button', 'show-image', 'Show image');
  button.type = 'button';
  button.addEventListener('click', () => {
    const image = el('img');
    image.alt = `Image attached to the notification, from ${host}`;
    image.src = url;
    button.replaceWith(image);
  });
  figure.append(caption, button);
  return figure;
}

/** Reports opened/cleared through the management API, as the person's app would. */
async function report(card, action) {
  const response = await fetch(`/v1/notifications/${encodeURIComponent(card.dataset.id)}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.account_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      device_id: card.dataset.deviceId,
      action: action === 'open' ? 'opened' : 'cleared',
    }),
  }).catch(() => undefined);
  if (!response) {
    card.querySelector('.state').textContent = 'Could not report it: the server is not responding';
    return;
  }
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    card.querySelector('.state').textContent =
      `Could not report it: ${problem.error?.message ?? response.status}`;
    return;
  }
  // Shown at once; the record read next says the same, with the other devices' states.
  if (action === 'clear') card.classList.add('cleared');
  card.querySelector('.open').disabled = true;
  if (action === 'clear') card.querySelector('.clear').disabled = true;
  await refreshRecord(card.dataset.id);
}

/** Reads a notification's record and redraws its cards; false when the server did not respond. */
async function refreshRecord(id) {
  try {
    const response = await fetch(`/dev/notifications/${encodeURIComponent(id)}`);
    if (!response.ok) return response.status < 500;
    const record = await response.json();
    records.set(id, record);
    for (const card of cards.get(id) ?? []) drawState(card, record);
    return true;
  } catch {
    return false;
  }
}

/**
 * Delivery is final once every device's state is: what the person does after that is reported
 * from this page, which reads the record again itself.
 */
const settled = (record) =>
  record !== undefined &&
  (record.status === 'dropped' ||
    (record.destinations.length > 0 && record.destinations.every((d) => FINAL_STATES.has(d.state))));

/** Polls the records still moving, while the page is live and seen; backs off while failing. */
async function refreshRecords() {
  clearTimeout(refreshRecords.timer);
  if (live && !document.hidden) {
    const moving = [...cards.keys()].filter((id) => !settled(records.get(id))).slice(-30);
    const refreshed = await Promise.all(moving.map(refreshRecord));
    backoff.poll = refreshed.every(Boolean) ? POLL_MS : Math.min(backoff.poll * 2, MAX_WAIT_MS);
  }
  refreshRecords.timer = setTimeout(refreshRecords, backoff.poll);
}

function drawState(card, record) {
  const mine = record.destinations.find((d) => d.device_id === card.dataset.deviceId);
  const handled = record.handled.filter((h) => h.device_id === card.dataset.deviceId).map((h) => h.action);
  card.dataset.status = record.status;
  const cleared = handled.includes('cleared');
  card.classList.toggle('opened', handled.includes('opened'));
  card.classList.toggle('cleared', cleared);
  // A cleared notification is gone from the device: nothing is left to press.
  card.querySelector('.open').disabled = cleared || handled.includes('opened');
  card.querySelector('.clear').disabled = cleared;
  const others = record.destinations
    .filter((d) => d !== mine)
    .map((d) => `${deviceNames.get(d.device_id) ?? d.device_id} ${STATE_WORDS[d.state] ?? d.state}`);
  const here = [mine ? STATE_WORDS[mine.state] : undefined, ...handled].filter(Boolean).join(', ');
  // One short line: this device first; the overall status and the other devices where there is room.
  card
    .querySelector('.state')
    .replaceChildren(
      el('span', 'here', capitalized(here || 'not here')),
      el('span', 'overall', ` · ${record.status}${record.reason ? ` (${record.reason})` : ''}`),
      ...(others.length > 0 ? [el('span', 'others', ` · ${others.join(', ')}`)] : []),
    );
}

const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);

start();
