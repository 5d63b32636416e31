import { createHash, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalPushService, type Subscription } from '@foxbell/test-support/web-push-service';
import {
  type Browser,
  type BrowserContext,
  type CDPSession,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, expect } from 'vitest';
import { forAll, send } from '../helpers.js';
import {
  ADMIN,
  cleanUpAfterTest,
  freePort,
  keptForAll,
  type Running,
  startProcess,
  tempDir,
} from '../processes.js';

/**
 * The Foxbell web app in real Chromium, as a phone shows it, against a real foxbell-server that
 * pushes to a local push service (Chromium's own is not reachable here): the browser's
 * subscription is one of the local service's, and what the server pushed there is delivered into
 * the app's service worker over the DevTools protocol, as the browser's push service would.
 */

const CHROMIUM = process.env.FOXBELL_CHROMIUM ?? '/usr/bin/chromium';
/** A host name of this machine that is not `localhost`: over plain http it is not a secure context. */
export const LAN_NAME = 'foxbell.lan';
/** How long a step may take: the app polls its link request every 2 s. */
export const WAIT = { timeout: 15_000 };
/** How often the app polls its link request (app.js's `setInterval(…, 2000)`). */
const LINK_POLL_MS = 2_000;

/** Pictures of the app, to look at after a run; docs/iphone.md's come from here. */
const OUTPUT = fileURLToPath(new URL('../../test-output/web-app', import.meta.url));
const DOCS_PICTURES = fileURLToPath(new URL('../../../../docs/images/iphone', import.meta.url));
const GUIDE = fileURLToPath(new URL('../../../../docs/iphone.md', import.meta.url));

/** The file's Chromium, one for each set of extra arguments (a certificate it trusts). */
const browsers = new Map<string, Promise<Browser>>();
const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close().catch(() => {})));
});
afterAll(async () => {
  const launched = [...browsers.values()];
  browsers.clear();
  await Promise.all(launched.map(async (browser) => (await browser.catch(() => undefined))?.close()));
});

/** One Chromium for a file's tests, each in a context of its own. */
async function chromiumOnce(extra: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set FOXBELL_CHROMIUM)`);
  }
  const key = extra.join(' ');
  if (!browsers.has(key)) {
    browsers.set(
      key,
      chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', `--host-resolver-rules=MAP ${LAN_NAME} 127.0.0.1`, ...extra],
      }),
    );
  }
  return browsers.get(key) as Promise<Browser>;
}

/**
 * Chromium's argument that trusts a site whose certificate chain holds `pem` (Caddy's local CA's
 * intermediate, which it sends with its certificate), as a phone trusts a public CA: by the
 * SHA-256 of its public key.
 */
function trusting(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return `--ignore-certificate-errors-spki-list=${createHash('sha256').update(spki).digest('base64')}`;
}

/** A foxbell-server whose Web Push goes to a local push service. */
export interface PushingServer {
  server: Running;
  push: LocalPushService;
  /** Starts the server again (after the test stopped it) on its port, with its data. */
  restart(): Promise<Running>;
}

export interface AppServer extends PushingServer {
  account: { id: string; key: string };
  /** A send token of the account, named "CI". */
  token: string;
}

/** A foxbell-server whose Web Push goes to a local push service, with an account and a token. */
export async function startAppServer(extra: string[] = []): Promise<AppServer> {
  return withAccount(await startPushingServer(extra));
}

/**
 * One server and push service for every test of the `describe` (or file) this is called in (see
 * forAll): starting them costs more than many of the app's tests. For tests that leave them as
 * found: each links its own browser context to an account of its own (`withAccount`), counts the
 * pushes to its own subscriptions, and none stops the server.
 */
export function appServerForAll(extra: string[] = []): () => PushingServer {
  return forAll('appServerForAll', async () => {
    const { value, release } = await keptForAll(() => startPushingServer(extra));
    return { value, close: release };
  });
}

/** `pushing` with an account of the test's own, and a send token of it named "CI". */
export async function withAccount(pushing: PushingServer): Promise<AppServer> {
  const { url } = pushing.server;
  const account = await send(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
  const token = await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: { name: 'CI' } });
  return { ...pushing, account: { id: account.body.id, key: account.body.key }, token: token.body.token };
}

/** The server and its push service, both ended after the test. */
async function startPushingServer(extra: string[]): Promise<PushingServer> {
  const dir = await tempDir();
  let serverUrl = '';
  const push = await LocalPushService.start({
    vapidKey: async () => (await (await fetch(`${serverUrl}/v1/web-push/key`)).json()).public_key,
  });
  cleanUpAfterTest(() => push.close());
  const ca = path.join(dir, 'push-ca.pem');
  await writeFile(ca, push.ca);
  // The address the browser opens the app at is the server's own (--public-url).
  const port = await freePort();
  const args = [
    ...['--data', path.join(dir, 'data'), '--admin-key', ADMIN, '--log-level', 'warn'],
    ...['--web-push-hosts', push.host, '--web-push-subject', 'mailto:ops@example.com'],
    ...['--public-url', `http://127.0.0.1:${port}`],
    ...extra,
  ];
  const restart = () => startProcess([...args, '--port', String(port)], { NODE_EXTRA_CA_CERTS: ca });
  const server = await restart();
  serverUrl = server.url;
  return { server, push, restart };
}

export interface AppOptions {
  /** An iPhone's Safari (its user agent, 390 × 844, touch); else a desktop Chromium. */
  iphone?: boolean;
  /** Opened from the Home Screen (navigator.standalone), as an installed web app is. */
  fromHomeScreen?: boolean;
  colorScheme?: 'light' | 'dark';
  /** The notification permission the browser responds with. */
  permission?: 'granted' | 'denied';
  /** The subscription the browser's PushManager gives; `hang`: its subscribe never responds. */
  subscription?: Subscription | 'hang';
  reducedMotion?: boolean;
  /** A certificate of the chain the site's HTTPS presents, trusted as a public CA would be. */
  trustedCertificate?: string;
  /**
   * The page's clock installed (running as the real one until moved): a test moves it on past the
   * app's waits (`context.clock.fastForward`) rather than waiting them out. The page's
   * `performance` then lists no resource timings.
   */
  movableClock?: boolean;
}

export interface Result {
  text: string;
  tone: string;
  /** The icon's image, as computed: each tone has its own. */
  icon: string;
  role: string | null;
  inView: boolean;
  /** Pixels from the control's bottom edge to the note's top edge. */
  below: number;
}

export interface App {
  page: Page;
  context: BrowserContext;
  cdp: CDPSession;
  /** Opened with `movableClock`. */
  movableClock: boolean;
  /** Errors the page logged or threw: a test ends with none. */
  problems: string[];
  /** Every note the app shows now (news, results, banners), top to bottom, joined by " | ". */
  said(): Promise<string>;
  /**
   * The result a control shows: the note its `aria-describedby` names, with its tone and its icon
   * (what tells the tones apart besides colour), where it is (in view, and how far below the
   * control's bottom edge) and its role; undefined while it shows none.
   */
  resultOf(control: Locator): Promise<Result | undefined>;
  /**
   * Hands a push's payload (JSON, or a string as it is) to the service worker, as the push service
   * would, and waits until the worker's push event has ended.
   */
  deliver(payload: unknown): Promise<void>;
  /**
   * The notifications on screen now, as the browser recorded them shown (title, body, tag); whether
   * each is silent and its data as the page API reads them (null and undefined where it does not).
   */
  shown(): Promise<{ title: string; body: string; tag: string; silent: boolean | null; data: unknown }[]>;
  /** Closes every notification shown, as a person clearing them. */
  clearShown(): Promise<void>;
}

/**
 * The app in a fresh browser context: a phone of its own. The page's PushManager gives the local
 * push service's subscription (the browser's own push service is not reachable here), and a test
 * may replace it (`localStorage['test.subscription']`), as a browser does when its push service
 * drops one.
 */
export async function openApp(url: string, options: AppOptions = {}): Promise<App> {
  const extra = options.trustedCertificate === undefined ? [] : [trusting(options.trustedCertificate)];
  const context = await (await chromiumOnce(extra)).newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    ...(options.iphone
      ? {
          userAgent:
            'Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Mobile/15E148 Safari/604.1',
          isMobile: true,
          hasTouch: true,
        }
      : {}),
    colorScheme: options.colorScheme ?? 'dark',
    reducedMotion: options.reducedMotion ? 'reduce' : 'no-preference',
  });
  contexts.push(context);
  if (options.movableClock) await context.clock.install();
  // Notifications can be granted to a secure origin only: an insecure one keeps the default.
  const { protocol, hostname } = new URL(url);
  const secure = protocol === 'https:' || hostname === '127.0.0.1' || hostname === 'localhost';
  if (options.permission !== 'denied' && secure) {
    await context.grantPermissions(['notifications'], { origin: new URL(url).origin });
  }
  await context.addInitScript(
    ({ subscription, standalone, denied }) => {
      if (standalone) Object.defineProperty(navigator, 'standalone', { get: () => true });
      if (denied) {
        Object.defineProperty(Notification, 'permission', { get: () => 'denied' });
        Notification.requestPermission = async () => 'denied';
      }
      if (subscription === undefined) return;
      const asSubscription = (made: NonNullable<typeof subscription>) =>
        ({
          endpoint: (made as { endpoint: string }).endpoint,
          toJSON: () => made,
          unsubscribe: async () => {
            current = null;
            localStorage.removeItem('test.subscription');
            return true;
          },
        }) as unknown as PushSubscription;
      const replaced = localStorage.getItem('test.subscription');
      let current: PushSubscription | null = replaced ? asSubscription(JSON.parse(replaced)) : null;
      PushManager.prototype.subscribe = async () => {
        if (subscription === 'hang') return new Promise<PushSubscription>(() => {});
        const renewed = localStorage.getItem('test.renewal');
        current ??= asSubscription(renewed ? JSON.parse(renewed) : subscription);
        return current;
      };
      PushManager.prototype.getSubscription = async () => current;
    },
    {
      subscription: options.subscription,
      standalone: options.fromHomeScreen ?? false,
      denied: options.permission === 'denied',
    },
  );
  // The push service's stand-in: a blank page of the same browser whose DevTools session hands
  // pushes to the worker, and stays open when the app's own page is closed.
  const control = await context.newPage();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    // A fetch the test made fail on purpose (the server stopped, offline) is the browser's own line.
    if (
      message.type() === 'error' &&
      !/Failed to load resource|ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED/.test(message.text())
    ) {
      problems.push(message.text());
    }
  });
  const cdp = await context.newCDPSession(control);
  const registrations: { registrationId: string; scopeURL: string }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
  const activated = new Set<string>();
  cdp.on('ServiceWorker.workerVersionUpdated', (event) => {
    for (const version of event.versions)
      if (version.status === 'activated') activated.add(version.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  const origin = new URL(url).origin;
  const worker = () => {
    const registration = registrations.find((entry) => entry.scopeURL === `${origin}/app/`);
    return registration && activated.has(registration.registrationId)
      ? registration.registrationId
      : undefined;
  };
  // What the browser shows, as its DevTools record it (the Background Services panel): a push
  // handed over, each notification displayed and closed (its instance the notification's tag), and
  // the push event's end. The record is the browser's own; a page's `getNotifications()` under
  // load has left out a notification the worker had shown, so the list below is the record's.
  const record: { name: string; tag: string; metadata: Record<string, string> }[] = [];
  cdp.on('BackgroundService.backgroundServiceEventReceived', ({ backgroundServiceEvent: event }) => {
    if (event.origin !== `${origin}/`) return;
    record.push({
      name: event.eventName,
      tag: event.instanceId,
      metadata: Object.fromEntries(event.eventMetadata.map(({ key, value }) => [key, value])),
    });
  });
  for (const service of ['notifications', 'pushMessaging'] as const) {
    await cdp.send('BackgroundService.startObserving', { service });
    await cdp.send('BackgroundService.setRecording', { service, shouldRecord: true });
  }
  /** From the record: what is on screen now, a newer notification with a tag in its older one's place. */
  const onScreen = () => {
    const open: { title: string; body: string; tag: string }[] = [];
    for (const { name, tag, metadata } of record) {
      const same = open.findIndex((one) => one.tag === tag);
      if (name === 'Notification closed' && same >= 0) open.splice(same, 1);
      if (name !== 'Notification displayed') continue;
      if (tag !== '' && same >= 0) open.splice(same, 1);
      open.push({ title: metadata.Title ?? '', body: metadata.Body ?? '', tag });
    }
    return open;
  };
  // What the record leaves out (whether it is silent, its data) is read from a window of the origin
  // outside the app's scope, never from the worker: an idle worker is stopped and started again by
  // the browser (after the app's page closes, for one), and a handle to it can be one that is gone.
  const reader = secure ? await context.newPage() : undefined;
  await reader?.goto(`${origin}/healthz`);
  await page.bringToFront();
  const notifications = (clear: boolean) =>
    reader
      ? reader.evaluate(
          async ({ scope, clear }) => {
            const registration = await navigator.serviceWorker.getRegistration(scope);
            const open = (await registration?.getNotifications()) ?? [];
            if (clear) for (const notification of open) notification.close();
            return open.map((notification) => ({
              tag: notification.tag,
              body: notification.body,
              silent: notification.silent,
              data: notification.data as unknown,
            }));
          },
          { scope: `${origin}/app/`, clear },
        )
      : Promise.resolve([]);
  return {
    page,
    context,
    cdp,
    movableClock: options.movableClock ?? false,
    problems,
    said: () =>
      page.evaluate(() =>
        [...document.querySelectorAll('.note')]
          .filter((note) => note.checkVisibility())
          .map((note) => note.querySelector('.note-text')?.textContent?.replace(/\s+/g, ' ').trim())
          .join(' | '),
      ),
    resultOf: (control) =>
      control.evaluate((element) => {
        const place = document.getElementById(element.getAttribute('aria-describedby') ?? '');
        const note = place?.querySelector<HTMLElement>('.note');
        if (!note?.checkVisibility()) return undefined;
        const box = note.getBoundingClientRect();
        return {
          text: note.querySelector('.note-text')?.textContent ?? '',
          tone: note.dataset.tone ?? '',
          icon: getComputedStyle(note).getPropertyValue('--icon').trim(),
          role: place?.getAttribute('role') ?? null,
          // Whole on screen (a fraction of a pixel aside, as layout rounds).
          inView: box.top >= -0.5 && box.bottom <= window.innerHeight + 0.5,
          below: Math.round(box.top - element.getBoundingClientRect().bottom),
        };
      }),
    async deliver(payload) {
      await expect.poll(() => worker(), WAIT).toBeDefined();
      const before = record.length;
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin,
        registrationId: worker() as string,
        data: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
      // Handed over once its push event has ended, whatever the worker did with it.
      await expect
        .poll(
          () => record.slice(before).find(({ name }) => name === 'Push event completed')?.metadata.Status,
          WAIT,
        )
        .toBe('Success');
    },
    async shown() {
      const options = await notifications(false);
      return onScreen().map(({ title, body, tag }) => {
        const read = options.find((one) => one.tag === tag && one.body === body);
        return { title, body, tag, silent: read?.silent ?? null, data: read?.data };
      });
    },
    async clearShown() {
      await notifications(true);
      // Closed, as the record says, before the next push is handed over.
      await expect.poll(() => onScreen(), WAIT).toEqual([]);
    },
  };
}

/** The page as a picture, for a person to look at (test-output/web-app), and for docs/iphone.md. */
export async function picture(page: Page, name: string): Promise<void> {
  await mkdir(OUTPUT, { recursive: true });
  const file = `${name}.png`;
  await page.screenshot({ path: path.join(OUTPUT, file), animations: 'disabled' });
  // `FOXBELL_PICTURES=docs` (pnpm pictures) writes anew the pictures the guide shows.
  if (
    process.env.FOXBELL_PICTURES === 'docs' &&
    (await readFile(GUIDE, 'utf8')).includes(`images/iphone/${file}`)
  ) {
    await mkdir(DOCS_PICTURES, { recursive: true });
    await page.screenshot({ path: path.join(DOCS_PICTURES, file), animations: 'disabled' });
  }
}

/**
 * An iPhone with the app on its Home Screen, opened at `base` (the server's own address unless
 * given: a proxy in front), turned on and linked to the server's account; on a movable clock
 * unless told otherwise.
 */
export async function linkedIphone(
  { server, push, account }: AppServer,
  { base = server.url, name, ...options }: AppOptions & { base?: string; name?: string } = {},
): Promise<App> {
  const app = await openApp(base, {
    iphone: true,
    fromHomeScreen: true,
    subscription: push.subscribe(),
    movableClock: true,
    ...options,
  });
  await app.page.goto(`${base}/app/`);
  await turnOn(app, name);
  await approveShownCode(app, server.url, account.key);
  return app;
}

/** iOS makes the app visible again: it reads its inbox and its device anew. */
export async function backToTheApp(app: App): Promise<void> {
  await app.page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
}

/** On the setup screen: names the device and turns notifications on, which shows a code. */
export async function turnOn(app: App, name = 'My iPhone'): Promise<void> {
  await app.page.getByLabel("This device's name").fill(name);
  await app.page.getByRole('button', { name: 'Turn on notifications' }).click();
}

/**
 * Links the app (already past its setup screen) by approving the code it shows with `accountKey`.
 * The app finds out at its next poll of the link request: on a movable clock, now.
 */
export async function approveShownCode(app: App, serverUrl: string, accountKey: string): Promise<void> {
  const shownCode = app.page.getByLabel('Link code');
  await expect.poll(() => shownCode.textContent(), WAIT).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
  const approved = await send(serverUrl, 'POST', '/v1/link-approvals', {
    token: accountKey,
    json: { code: await shownCode.textContent() },
  });
  expect(approved.status, approved.text).toBe(201);
  if (app.movableClock) await app.context.clock.fastForward(LINK_POLL_MS);
  await expect.poll(() => app.page.getByRole('heading', { name: 'Inbox' }).isVisible(), WAIT).toBe(true);
}
