// The Foxbell web app: a person's device, linked to their account with a code, receiving what is
// sent to them by Web Push. No framework and no build of its own: the server serves these files
// as they are, and the SDK's device client as one bundled module; their types are JSDoc, checked
// by `pnpm typecheck` (web-app/tsconfig.json). Text from a notification only ever goes in through
// textContent, and no message of the API reaches the person: every failure is said in the app's
// own words (`explain`), next to the control it is about (`tell`).

import { FoxbellDevice, inactiveInWords, linkApprovalInWords, minutesInWords } from '/app/device.js';
import { bellColor, drawScene } from '/app/scenes.js';

/** @import { InboxItem, LinkRequest, LinkRequestInput, PushAddress, RetryInfo } from '/app/device.js' */

const SAVED = 'foxbell.device';
/**
 * The last inbox page read, with the device it was read for: shown at once on the next open, and
 * when the server cannot be reached, never for another device (after a move, or once forgotten).
 */
const KEPT_INBOX = 'foxbell.inbox';
/** After this long, turning notifications on says it is slow and offers a way out. */
const SLOW_MS = 8000;
/** While the server cannot be reached, the inbox is read again this often (and on each return). */
const CATCH_UP_MS = 10_000;
/** What a proxy in front returns while the server is stopped or restarting: the server is away. */
const AWAY_STATUSES = new Set([502, 503, 504]);

// ---- The page's elements ---------------------------------------------------------------------

/**
 * The element `id` of index.html, as the kind of element this file uses it as (HTMLElement
 * unless said). The two files go together: an element missing, or of another kind, is a bug in
 * one of them, said here at once rather than as a read of null further on.
 * @overload
 * @param {string} id
 * @returns {HTMLElement}
 */
/**
 * @template {HTMLElement} E
 * @overload
 * @param {string} id
 * @param {new () => E} kind
 * @returns {E}
 */
/**
 * @param {string} id
 * @param {new () => HTMLElement} [kind]
 */
function $(id, kind = HTMLElement) {
  return ofKind(document.getElementById(id), kind, `#${id}`);
}

/**
 * The element `selector` finds in `root` (a copy of one of index.html's templates), as `$` does.
 * @overload
 * @param {ParentNode} root
 * @param {string} selector
 * @returns {HTMLElement}
 */
/**
 * @template {HTMLElement} E
 * @overload
 * @param {ParentNode} root
 * @param {string} selector
 * @param {new () => E} kind
 * @returns {E}
 */
/**
 * @param {ParentNode} root
 * @param {string} selector
 * @param {new () => HTMLElement} [kind]
 */
function part(root, selector, kind = HTMLElement) {
  return ofKind(root.querySelector(selector), kind, selector);
}

/**
 * @template {HTMLElement} E
 * @param {unknown} found
 * @param {new () => E} kind
 * @param {string} selector
 * @returns {E}
 */
function ofKind(found, kind, selector) {
  if (found instanceof kind) return found;
  throw new Error(`index.html has no ${kind.name} ${selector}`);
}

/** A copy of the element in index.html's template `id`. */
function fromTemplate(/** @type {string} */ id) {
  const copy = $(id, HTMLTemplateElement).content.firstElementChild?.cloneNode(true);
  return ofKind(copy, HTMLElement, `#${id} > *`);
}

// ---- What this installation keeps ----------------------------------------------------------

/**
 * What this installation keeps: its own id, the link being made (and what for), then its key,
 * device id, name and link time, and the push endpoint the server has for it. A part set to
 * undefined is forgotten (JSON leaves it out).
 * @typedef {object} Saved
 * @property {string | undefined} [clientId]
 * @property {LinkRequest | undefined} [link]
 * @property {'join' | 'move' | undefined} [linkFor]
 * @property {string | undefined} [subscribedTo] the endpoint of the subscription a link asked with
 * @property {string | undefined} [key]
 * @property {string | undefined} [deviceId]
 * @property {string | undefined} [name]
 * @property {string | undefined} [linkedAt]
 * @property {string | undefined} [endpoint]
 */

/**
 * What this installation keeps. Only this file writes it; anything else there (another app's
 * value, or not an object) is read as nothing kept.
 * @returns {Saved}
 */
function saved() {
  try {
    const kept = JSON.parse(localStorage.getItem(SAVED) ?? '{}');
    return typeof kept === 'object' && kept !== null ? kept : {};
  } catch {
    return {};
  }
}
function save(/** @type {Saved} */ change) {
  localStorage.setItem(SAVED, JSON.stringify({ ...saved(), ...change }));
}

function clientId() {
  const kept = saved().clientId;
  if (kept) return kept;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const made = `web-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  save({ clientId: made });
  return made;
}

/** @param {{ onRetry?: (info: RetryInfo) => void }} [options] */
function device(options = {}) {
  const { key, deviceId } = saved();
  return new FoxbellDevice({ baseUrl: location.origin, deviceKey: key, deviceId, ...options });
}

// ---- Saying things -------------------------------------------------------------------------

/**
 * @typedef {object} Note
 * @property {'success' | 'info' | 'warning' | 'error'} [tone]
 * @property {(() => unknown) | undefined} [retry]
 * @property {'connection' | 'linked' | undefined} [cause]
 * @property {boolean} [scroll]
 */

/**
 * Says `text` at `place`: the note region next to the control it is about (`rename`, `approve`,
 * …), `connection` for whether the server can be reached, or `page`, above the screen, for news
 * that comes with a new screen. The region is in the page from the start, so a screen reader
 * announces what appears in it, and the note is scrolled into view. Its tone (`success`, `info`,
 * `warning`, `error`) shows as an icon as well as a colour. `retry` adds a "Try again" button;
 * `cause` marks a note that goes by itself (`connection`: once the network is back; `linked`:
 * once a notification arrives). `scroll: false` for news the person did not ask for, which must
 * not move the page under them. An empty text clears the place.
 * @param {string} place
 * @param {string} text
 * @param {Note} [note]
 */
function tell(place, text, { tone = 'info', retry, cause, scroll = true } = {}) {
  const region = $(`${place}-note`);
  if (text === '') return region.replaceChildren();
  // The same words again (a poll that fails each time) are neither redrawn nor announced again.
  const shown = region.querySelector('.note');
  const same = shown instanceof HTMLElement && shown.dataset.tone === tone;
  if (same && part(shown, '.note-text').textContent === text) return;
  const note = fromTemplate('note');
  note.dataset.tone = tone;
  if (cause) note.dataset.cause = cause;
  part(note, '.note-text').textContent = text;
  const again = part(note, '.note-retry');
  again.hidden = retry === undefined;
  again.addEventListener('click', () => {
    region.replaceChildren();
    void retry?.();
  });
  region.replaceChildren(note);
  if (scroll && (note.checkVisibility?.() ?? true)) note.scrollIntoView({ block: 'nearest' });
}

/** Clears every note that `cause` made stale. */
function clearNotes(/** @type {NonNullable<Note['cause']>} */ cause) {
  for (const note of document.querySelectorAll(`.note[data-cause="${cause}"]`)) note.remove();
}

/**
 * A failure said at `place`; one that ends the device's key ends it here instead.
 * @param {string} place
 * @param {unknown} error
 * @param {() => unknown} [retry]
 */
function fail(place, error, retry) {
  if (keyEnded(error)) return endKey(error);
  tell(place, explain(error), {
    tone: 'error',
    retry,
    cause: unreachable(error) ? 'connection' : undefined,
  });
}

const SCREENS = /** @type {const} */ ([
  'install',
  'insecure',
  'unsupported',
  'setup',
  'denied',
  'linking',
  'inbox',
  'settings',
]);
/** @typedef {typeof SCREENS[number]} Screen */

/**
 * Shows `first` (whose title takes the focus when the control used went) and `others`, and
 * hides every other screen.
 * @param {Screen} first
 * @param {...Screen} others
 */
function show(first, ...others) {
  const screens = [first, ...others];
  const focused = document.activeElement;
  for (const id of SCREENS) {
    const hidden = !screens.includes(id);
    $(id).hidden = hidden;
    // What was said about a screen is gone with it.
    if (hidden) for (const place of $(id).querySelectorAll('.note-place')) place.replaceChildren();
  }
  // The control just used went with its screen: the new screen's title takes the focus, so a
  // screen reader reads where the person is now.
  if (focused && focused !== document.body && !focused.checkVisibility?.()) {
    const title = $(first).querySelector('h2');
    title?.setAttribute('tabindex', '-1');
    title?.focus();
  }
}

/**
 * What the app reads of a failure. The device client's errors carry the API's code, status,
 * field, details, request id and Retry-After, or, without a response, a code of their own
 * (`connection_error`, `timeout`); anything else thrown (a browser's DOMException, whose `code`
 * is a number) is read as a failure with none of them.
 * @typedef {object} Failure
 * @property {string | undefined} code
 * @property {number | undefined} status
 * @property {string | undefined} field
 * @property {Record<string, unknown> | undefined} details
 * @property {string | undefined} requestId
 * @property {number | undefined} retryAfter
 */

/** @returns {Failure} */
function failureOf(/** @type {unknown} */ error) {
  // A cast, since TypeScript reads no field of an `object`; it claims only that the fields are
  // unknown, and each is checked below.
  const fields = /** @type {Partial<Record<string, unknown>>} */ (
    typeof error === 'object' && error !== null ? error : {}
  );
  const text = (/** @type {unknown} */ value) => (typeof value === 'string' ? value : undefined);
  const number = (/** @type {unknown} */ value) => (typeof value === 'number' ? value : undefined);
  const details = fields.details;
  return {
    code: text(fields.code),
    status: number(fields.status),
    field: text(fields.field),
    // An object's fields as unknown, as above: each is checked where it is read.
    details:
      typeof details === 'object' && details !== null
        ? /** @type {Record<string, unknown>} */ (details)
        : undefined,
    requestId: text(fields.requestId),
    retryAfter: number(fields.retryAfter),
  };
}

/**
 * No response from Foxbell's server: no network, no connection, no response in time, or a proxy in
 * front responding for it (502, 503, 504) while it is stopped or restarting.
 */
function unreachable(/** @type {unknown} */ error) {
  const { code, status } = failureOf(error);
  return (
    code === 'connection_error' || code === 'timeout' || (status !== undefined && AWAY_STATUSES.has(status))
  );
}

/**
 * Why something failed, as the person can act on it: never the API's own message. A link code
 * that does not work is said in the words `foxbell-server admin link approve` says it in.
 */
function explain(/** @type {unknown} */ error) {
  const failure = failureOf(error);
  const { code, status, retryAfter } = failure;
  // A proxy's own response carries no request id of Foxbell's: the server itself is not responding.
  if (status !== undefined && AWAY_STATUSES.has(status) && failure.requestId === undefined) {
    return "Foxbell's server cannot be reached right now. Try again in a moment.";
  }
  const aboutTheCode = code === undefined ? undefined : linkApprovalInWords({ ...failure, code });
  if (aboutTheCode !== undefined) return aboutTheCode;
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
      return `Too many tries from here. Wait ${minutesInWords(retryAfter)}, then try again.`;
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
      return failure.field === 'name'
        ? 'A device name is 1 to 64 characters, without line breaks.'
        : 'Foxbell could not take that. Check it and try again.';
    default:
      return status === 401
        ? "This device's link to its account no longer works. Link it again."
        : 'Something went wrong. Try again in a moment.';
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
// `navigator.standalone` is Safari's own (true in a web app opened from the Home Screen).
const fromHomeScreen = () =>
  ('standalone' in navigator && navigator.standalone === true) ||
  matchMedia('(display-mode: standalone)').matches;
const canPush = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/**
 * What stops this page from receiving, in the order a person must fix it; undefined when nothing.
 * @returns {'insecure' | 'install' | 'unsupported' | 'denied' | undefined}
 */
function obstacle() {
  if (!window.isSecureContext) return 'insecure';
  if (isAppleMobile() && !fromHomeScreen()) return 'install';
  if (!canPush()) return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  return undefined;
}

function showObstacle(/** @type {NonNullable<ReturnType<typeof obstacle>>} */ which) {
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
  $('name', HTMLInputElement).value = state.name ?? guessName();
  show('setup');
}

// ---- Turning notifications on and asking to be linked --------------------------------------

/** Counts attempts: a cancelled one that finishes later changes nothing. */
let attempt = 0;

/**
 * The browser's push subscription, made with the server's key when there is none yet.
 * @param {ServiceWorkerRegistration} registration
 * @param {FoxbellDevice} client
 */
async function subscription(registration, client) {
  const current = await registration.pushManager.getSubscription();
  if (current) return current;
  return registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: await client.webPushKey(),
  });
}

/**
 * A subscription as the device client sends it. The browser types each of its parts as optional
 * (`PushSubscriptionJSON`); a subscription from `pushManager` has them all, and one without them
 * could receive nothing: it fails here, said as any failure is, rather than at the server.
 * @returns {PushAddress}
 */
function pushAddressOf(/** @type {PushSubscription} */ subscription) {
  const { endpoint, expirationTime, keys } = subscription.toJSON();
  const p256dh = keys?.p256dh;
  const auth = keys?.auth;
  if (endpoint === undefined || p256dh === undefined || auth === undefined) {
    throw new Error('the browser gave a push subscription without its endpoint or keys');
  }
  return {
    webPush: {
      endpoint,
      ...(expirationTime === undefined ? {} : { expirationTime }),
      keys: { p256dh, auth },
    },
  };
}

function progress(/** @type {boolean} */ on) {
  $('setup-progress').hidden = !on;
  $('setup-form').hidden = on;
  $('setup-cancel').hidden = true;
  $('setup-progress-text').textContent = 'Turning on notifications…';
}

async function turnOn() {
  const name = $('name', HTMLInputElement).value.trim();
  if (!name) return;
  save({ name });
  tell('setup', '');
  tell('page', '');
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
      return tell('setup', 'Notifications were not allowed. Tap "Turn on notifications" to be asked again.', {
        tone: 'warning',
      });
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
      push: pushAddressOf(subscribed),
    });
    if (mine !== attempt) return;
    save({ link, linkFor: 'join', subscribedTo: subscribed.endpoint });
    showLinking(link);
  } catch (error) {
    if (mine === attempt) fail('setup', error, turnOn);
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
  tell('setup', 'Cancelled. Check that this device is online, then try again.', { retry: turnOn });
});
$('denied-retry').addEventListener('click', () => {
  tell('denied', '');
  if (Notification.permission === 'denied') {
    return tell('denied', 'Notifications are still off for Foxbell. Turn them on in Settings first.', {
      tone: 'warning',
    });
  }
  void start();
});

/** @type {number | undefined} */
let polling;
function showLinking(/** @type {LinkRequest} */ link) {
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

async function poll(/** @type {LinkRequest} */ link) {
  try {
    const status = await device().pollLink(link);
    tell('linking', '');
    if (status.linked) {
      clearInterval(polling);
      const moved = saved().linkFor === 'move';
      // A new device of its account: nothing kept for the one before is shown again.
      localStorage.removeItem(KEPT_INBOX);
      save({
        link: undefined,
        linkFor: undefined,
        key: status.linked.deviceKey,
        deviceId: status.linked.device.id,
        name: status.linked.device.name,
        linkedAt: status.linked.device.created_at,
        endpoint: saved().subscribedTo,
      });
      tell(
        'page',
        moved
          ? 'Moved. What is sent to you in the new account now arrives here.'
          : 'Linked. What is sent to you now arrives here.',
        // Said until something arrives: then the inbox shows it.
        { tone: 'success', cause: 'linked' },
      );
      return showLinked();
    }
    if (status.state !== 'pending') {
      clearInterval(polling);
      save({ link: undefined, linkFor: undefined });
      await start();
      tell(
        'page',
        status.state === 'expired'
          ? 'The code expired before it was approved. Make a new one.'
          : status.state === 'superseded'
            ? 'This device was linked another way meanwhile. Make a new code.'
            : 'The link was cancelled.',
        { tone: 'warning' },
      );
    }
  } catch (error) {
    // The poll's credential is the request's own secret, not the device's key: said, and polled again.
    tell('linking', explain(error), { tone: 'error', cause: unreachable(error) ? 'connection' : undefined });
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
  tell('page', '');
  void start();
});

// ---- Linked: the inbox, kept current ----------------------------------------------------------

/** @type {string | null} */
let cursor = null;
/** @type {Map<string, InboxItem>} */
const loaded = new Map();

async function showLinked() {
  show('inbox', 'settings');
  $('device-name').textContent = saved().name ?? '';
  $('rename', HTMLInputElement).value = saved().name ?? '';
  // What was read last time, at once: the fresh page replaces it when it comes.
  renderInbox(keptInbox(), null);
  await refresh();
  await checkDevice();
  const wanted = new URLSearchParams(location.search).get('notification');
  if (wanted) await openById(wanted);
}

/**
 * The inbox page kept for this device, or none. Only keepInbox writes it; anything else there
 * (not an object, another device's) is read as none.
 * @returns {InboxItem[]}
 */
function keptInbox() {
  try {
    /** @type {unknown} */
    const kept = JSON.parse(localStorage.getItem(KEPT_INBOX) ?? 'null');
    const mine = saved().deviceId;
    if (mine === undefined || typeof kept !== 'object' || kept === null) return [];
    return 'deviceId' in kept && kept.deviceId === mine && 'items' in kept && Array.isArray(kept.items)
      ? kept.items
      : [];
  } catch {
    return [];
  }
}
function keepInbox(/** @type {InboxItem[]} */ items) {
  localStorage.setItem(KEPT_INBOX, JSON.stringify({ deviceId: saved().deviceId, items }));
}

/**
 * @param {InboxItem[]} items
 * @param {string | null} next the cursor of the page after these
 */
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
  markJoined();
}

/**
 * The inbox is the account's: a device linked today also lists what its account was sent before
 * (30 days of it), which never showed on it as a notification. A line says where this device
 * joined; and once something arrived since, the "Linked" news has done its work.
 */
function markJoined() {
  $('items').querySelector('.joined')?.remove();
  const linkedAt = Date.parse(saved().linkedAt ?? '');
  if (Number.isNaN(linkedAt)) return;
  const rows = [...$('items').querySelectorAll('.item')].filter((row) => row instanceof HTMLElement);
  const created = (/** @type {HTMLElement} */ row) => Date.parse(row.dataset.created ?? '');
  if (rows.some((row) => created(row) >= linkedAt)) clearNotes('linked');
  const first = rows.find((row) => created(row) < linkedAt);
  if (!first) return;
  const line = fromTemplate('joined');
  const when = new Date(linkedAt).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
  part(line, '.joined-hint').textContent =
    `It was linked on ${when}. Your account's inbox keeps 30 days; these did not show on this device as notifications.`;
  first.before(line);
}

/**
 * The next read of the inbox while the server does not respond.
 * @type {number | undefined}
 */
let catchUp;
/**
 * Whether the server responds: `offline` (this device has no network), `away` (no connection to
 * it, or a proxy responding for it while it is stopped), or '' once it responded. While it does
 * not, the last inbox stays, and is read again every CATCH_UP_MS and when the network is back.
 */
function connection(/** @type {'offline' | 'away' | ''} */ state) {
  clearTimeout(catchUp);
  if (state === '') {
    tell('connection', '');
    return clearNotes('connection');
  }
  catchUp = setTimeout(() => void refresh(), CATCH_UP_MS);
  if (state === 'offline') {
    return tell(
      'connection',
      "You're offline. Showing what arrived before; new notifications still reach this device.",
      { tone: 'warning', scroll: false },
    );
  }
  tell(
    'connection',
    "Foxbell's server cannot be reached right now. Showing what arrived before; it catches up by itself when the server is back.",
    { tone: 'warning', retry: refresh, scroll: false },
  );
}
/** @returns {'offline' | 'away'} */
const awayState = () => (navigator.onLine === false ? 'offline' : 'away');

/** A read retried because the server did not respond: said at once, while the read goes on. */
function sayAwayWhileRetrying(/** @type {RetryInfo} */ info) {
  const { reason, status } = info;
  if (reason === 'network' || reason === 'timeout' || (status !== undefined && AWAY_STATUSES.has(status))) {
    connection(awayState());
  }
}

/** The newest page, read again: on open, on return to the app, and when a push arrives. */
async function refresh() {
  const reading = saved().deviceId;
  if (!saved().key) return;
  try {
    const page = await device({ onRetry: sayAwayWhileRetrying }).inbox({ limit: 30 });
    // Read for a device this app no longer is (moved or forgotten meanwhile): not shown.
    if (saved().deviceId !== reading) return;
    renderInbox(page.items, page.nextCursor);
    keepInbox(page.items);
    connection('');
    // Seen: the app is open (the server counts the badge from this moment on).
    await navigator.clearAppBadge?.().catch(() => {});
  } catch (error) {
    if (saved().deviceId !== reading) return;
    if (keyEnded(error)) return endKey(error);
    if (unreachable(error)) return connection(awayState());
    connection('');
    tell('page', explain(error), { tone: 'error', retry: refresh });
  }
}

async function loadOlder() {
  tell('more', '');
  try {
    const page = await device().inbox(cursor === null ? { limit: 30 } : { cursor, limit: 30 });
    for (const item of page.items) {
      loaded.set(item.id, item);
      $('items').append(itemRow(item));
    }
    cursor = page.nextCursor;
    $('more').hidden = !cursor;
    markJoined();
  } catch (error) {
    fail('more', error, loadOlder);
  }
}
$('more').addEventListener('click', () => loadOlder());

/**
 * Whether pushes still reach this device: the server's word (its push service said the
 * subscription is gone), the browser's (permission taken back, subscription replaced or dropped:
 * a new one is registered at once), shown with a way back when they do not.
 */
async function checkDevice() {
  const checking = saved().deviceId;
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
    if (saved().deviceId !== checking) return;
    if (!me.active) return stoppedBecause(me.inactive_reason ?? 'subscription_gone');
    if (current && current.endpoint === saved().endpoint) return stopped('', false);
    // The browser replaced or dropped the subscription: the new one is registered.
    await renew(registration, current);
    stopped('', false);
  } catch (error) {
    if (saved().deviceId !== checking) return;
    if (keyEnded(error)) return endKey(error);
    if (unreachable(error)) return;
    stopped('Notifications stopped reaching this device.', true);
  }
}

/**
 * Why this device is inactive, in the contract's words. Its key still works, so it is still its
 * account's: the server keeps a device so only when its push service dropped its subscription
 * (`subscription_gone`), which a server that does not say why means too.
 */
function stoppedBecause(/** @type {string} */ reason) {
  const { what, advice } = inactiveInWords(reason);
  const gone = reason === 'subscription_gone';
  // For a subscription gone, the advice is the button below the words.
  stopped(
    `Notifications stopped reaching this device: ${what}.${gone ? '' : ` ${advice.charAt(0).toUpperCase()}${advice.slice(1)}.`}`,
    gone,
  );
}

/**
 * Says whether pushes stopped reaching this device ('' when they reach it).
 * @param {string} text
 * @param {boolean} offerRenewal
 */
function stopped(text, offerRenewal) {
  $('stopped').hidden = text === '';
  $('stopped-text').textContent = text;
  $('resubscribe').hidden = !offerRenewal;
  if (text !== '') tell('resubscribe', '');
}

/**
 * A subscription registered anew: the current one if the browser has one, else a fresh one.
 * @param {ServiceWorkerRegistration | undefined} registration
 * @param {PushSubscription | null | undefined} current
 */
async function renew(registration, current) {
  const ready = registration ?? (await navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }));
  const client = device();
  const fresh =
    current ??
    (await ready.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: await client.webPushKey(),
    }));
  await client.update({ push: pushAddressOf(fresh) });
  save({ endpoint: fresh.endpoint });
}

$('resubscribe').addEventListener('click', async () => {
  tell('resubscribe', '');
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
    tell('resubscribe', 'Notifications are on again.', { tone: 'success' });
  } catch (error) {
    fail('resubscribe', error);
  }
});

/**
 * An inbox item's field beyond the four the device client types (`title`, `url`, `url_title`,
 * `scene`): its text, or undefined when it has none (null, or absent).
 */
const textOf = (/** @type {unknown} */ value) => (typeof value === 'string' ? value : undefined);

function itemRow(/** @type {InboxItem} */ item) {
  const row = fromTemplate('item');
  row.dataset.id = item.id;
  row.dataset.created = item.created_at;
  part(row, '.sender').textContent = item.sender;
  part(row, '.title').textContent = textOf(item.title) ?? '';
  part(row, '.message').textContent = item.message;
  const when = part(row, '.when', HTMLTimeElement);
  when.dateTime = item.created_at;
  when.textContent = new Date(item.created_at).toLocaleString([], {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  // Named for what they act on: a screen reader lists many of them.
  const clear = part(row, '.clear');
  clear.setAttribute('aria-label', `Clear the notification from ${item.sender}`);
  part(row, '.open').addEventListener('click', () => openItem(item));
  clear.addEventListener('click', async () => {
    // Gone from this inbox whatever the response: the report is the server's record of it.
    await device().report(item.id, 'cleared').catch(endIfKeyEnded);
    if (!saved().key) return;
    row.remove();
    loaded.delete(item.id);
    keepInbox([...loaded.values()]);
    $('empty').hidden = loaded.size > 0;
    markJoined();
  });
  return row;
}

/** The notification a tap opened: looked up in the inbox, a few pages back at most. */
async function openById(/** @type {string} */ id) {
  for (let pages = 0; !loaded.has(id) && cursor && pages < 5; pages += 1) await loadOlder();
  const item = loaded.get(id);
  history.replaceState(null, '', '/app/');
  if (item) await openItem(item);
}

/** Plays the notification's scene full screen, with its whole text and its link as a button. */
async function openItem(/** @type {InboxItem} */ item) {
  drawScene($('scene-art'), textOf(item.scene), item.scene_params, bellColor(item.bell_color), {
    stage: true,
  });
  $('scene-sender').textContent = item.sender;
  $('scene-title').textContent = textOf(item.title) ?? '';
  $('scene-message').textContent = item.message;
  const url = textOf(item.url);
  const link = url ? URL.parse(url) : null;
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
    const title = textOf(item.url_title);
    button.textContent = title ? `${link.hostname} — ${title}` : `Open ${link.hostname}`;
    $('scene-link').append(button);
  }
  $('scene', HTMLDialogElement).showModal();
  $('scene-close').focus();
  await device().report(item.id, 'opened').catch(endIfKeyEnded);
}

// ---- This device ------------------------------------------------------------------------------

$('rename-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  tell('rename', '');
  try {
    const updated = await device().update({ name: $('rename', HTMLInputElement).value.trim() });
    save({ name: updated.name });
    $('device-name').textContent = updated.name;
    tell('rename', `Renamed. This device is “${updated.name}” now.`, { tone: 'success' });
  } catch (error) {
    fail('rename', error);
  }
});

$('approve-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  tell('approve', '');
  try {
    const code = $('approve', HTMLInputElement);
    const linked = await device().approve(code.value);
    code.value = '';
    tell('approve', `${linked.name} is linked to your account.`, { tone: 'success' });
  } catch (error) {
    fail('approve', error);
  }
});

/**
 * Moves this device to another account: a link request with its key for this one as proof, whose
 * code the other account approves. The person is asked before an account still in use is left.
 */
$('switch').addEventListener('click', async () => {
  tell('actions', '');
  if (!confirm('Move this device to another account? You approve its code from that account.')) return;
  const registration = await navigator.serviceWorker.getRegistration('/app/');
  const current = await registration?.pushManager.getSubscription();
  if (!current) {
    return tell('actions', 'Notifications are off on this device. Turn them on again first.', {
      tone: 'warning',
    });
  }
  const { key, name } = saved();
  // Settings show only while linked: a key gone meanwhile (forgotten in another window of the
  // app) leaves nothing to move, so the app starts again as that window did.
  if (key === undefined) return start();
  try {
    /** @type {LinkRequestInput} */
    const asked = {
      deviceId: clientId(),
      name: name ?? guessName(),
      platform: 'ios',
      push: pushAddressOf(current),
      source: { deviceKey: key },
    };
    let link;
    try {
      link = await device().requestLink(asked);
    } catch (error) {
      const { code, details } = failureOf(error);
      if (code !== 'source_in_use') throw error;
      const { token_count: tokens, other_devices: devices } = details ?? {};
      const question = `Your current account still has ${tokens} send ${tokens === 1 ? 'token' : 'tokens'} and ${devices} other ${devices === 1 ? 'device' : 'devices'}. Leave it anyway?`;
      if (!confirm(question)) return;
      link = await device().requestLink({ ...asked, sourceInUse: 'leave' });
    }
    save({ link, linkFor: 'move', subscribedTo: current.endpoint });
    tell('page', '');
    showLinking(link);
  } catch (error) {
    fail('actions', error);
  }
});

$('leave').addEventListener('click', async () => {
  tell('actions', '');
  if (!confirm('Remove this device from your account? It stops receiving notifications.')) return;
  try {
    await device().leave();
  } catch (error) {
    if (failureOf(error).code !== 'token_revoked') return fail('actions', error);
  }
  // The browser's subscription goes too; the device has left whether or not that works.
  const registration = await navigator.serviceWorker.getRegistration('/app/');
  await (await registration?.pushManager.getSubscription())?.unsubscribe().catch(() => {});
  forget();
  tell('page', 'This device left its account. Link it again to receive notifications here.');
});

// ---- When the key ends --------------------------------------------------------------------------

/**
 * A response that says this device's key works no more: any 401 to a request made with it (its
 * device removed or moved, its account deleted or merged away).
 */
function keyEnded(/** @type {unknown} */ error) {
  return failureOf(error).status === 401 && saved().key !== undefined;
}

/** The key ended: everything of its account is forgotten here, and the person told why. */
function endKey(/** @type {unknown} */ error) {
  if (saved().key === undefined) return;
  forget();
  tell('page', explain(error), { tone: 'warning' });
}

/** For a request whose failure is otherwise of no matter (a report): only an ended key counts. */
function endIfKeyEnded(/** @type {unknown} */ error) {
  if (keyEnded(error)) endKey(error);
}

/**
 * Forgets the device's key, the inbox it kept and the notifications of its account still shown,
 * and starts again from setup.
 */
function forget() {
  save({
    key: undefined,
    deviceId: undefined,
    linkedAt: undefined,
    link: undefined,
    linkFor: undefined,
    endpoint: undefined,
  });
  localStorage.removeItem(KEPT_INBOX);
  clearInterval(polling);
  $('device-name').textContent = '';
  stopped('', false);
  connection('');
  loaded.clear();
  $('items').replaceChildren();
  void navigator.serviceWorker
    ?.getRegistration('/app/')
    .then((registration) => registration?.getNotifications())
    .then((shown) => {
      for (const notification of shown ?? []) notification.close();
    })
    .catch(() => {});
  void navigator.clearAppBadge?.().catch(() => {});
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
  // What was said about being offline is not true any more.
  connection('');
  if (saved().key) void refresh();
});
addEventListener('offline', () => {
  if (saved().key) connection('offline');
});

if (canPush() && window.isSecureContext) {
  void navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch(() => {});
}
void start();
