import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalPushService } from '@foxbell/test-support/push-service';
import { type Browser, chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN, startProcess, tempDir } from '../processes.js';

/**
 * The Foxbell web app in real Chromium, against a real foxbell-server that pushes to a local push
 * service (Chromium's own is not reachable here): the browser's subscription is pointed at it, and
 * what the server pushed there is delivered into the app's service worker over the DevTools
 * protocol, as the browser's push service would.
 */

const CHROMIUM = process.env.FOXBELL_CHROMIUM ?? '/usr/bin/chromium';
/** How long a step may take: the app polls its link request every 2 s. */
const WAIT = { timeout: 10_000 };
/** Pictures of the app at the widths people use, to look at after a run. */
const OUTPUT = fileURLToPath(new URL('../../test-output', import.meta.url));

let browser: Browser | undefined;
let push: LocalPushService | undefined;
afterEach(async () => {
  await browser?.close();
  await push?.close();
  browser = undefined;
  push = undefined;
});

describe('the web app in Chromium', () => {
  it('links itself with a code, shows a push as a notification with the sender, and opens its scene', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set FOXBELL_CHROMIUM)`);
    }
    const dir = await tempDir();
    let serverUrl = '';
    push = await LocalPushService.start({
      vapidKey: async () => (await (await fetch(`${serverUrl}/v1/web-push/key`)).json()).public_key,
    });
    const ca = path.join(dir, 'push-ca.pem');
    await writeFile(ca, push.ca);
    const server = await startProcess(
      [
        ...['--data', path.join(dir, 'data'), '--admin-key', ADMIN, '--log-level', 'warn'],
        ...['--web-push-hosts', push.host, '--web-push-subject', 'mailto:ops@example.com'],
      ],
      { NODE_EXTRA_CA_CERTS: ca },
    );
    serverUrl = server.url;
    const account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const token = await send(server.url, 'POST', '/v1/tokens', {
      token: account.body.key,
      json: { name: 'CI' },
    });

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.grantPermissions(['notifications'], { origin: server.url });
    // The subscription a browser would make with its push service, made with ours instead. The
    // page reads it back as the browser's current one (getSubscription), until the test replaces
    // it with another, as a browser does when its push service drops one.
    const subscription = push.subscribe();
    await context.addInitScript((json) => {
      const asSubscription = (made: typeof json) =>
        ({
          endpoint: made.endpoint,
          toJSON: () => made,
          unsubscribe: async () => {
            current = null;
            return true;
          },
        }) as unknown as PushSubscription;
      const replaced = localStorage.getItem('test.subscription');
      let current: PushSubscription | null = null;
      if (replaced) current = asSubscription(JSON.parse(replaced));
      PushManager.prototype.subscribe = async () => {
        current ??= asSubscription(json);
        return current;
      };
      PushManager.prototype.getSubscription = async () => current;
    }, subscription);
    const page = await context.newPage();
    // The app's status line (the link code is an <output>, a status too).
    const status = page.locator('#status');
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    // Which registrations have an activated worker: a push delivered before that would find none.
    const activated = new Set<string>();
    cdp.on('ServiceWorker.workerVersionUpdated', (event) => {
      for (const version of event.versions) {
        if (version.status === 'activated') activated.add(version.registrationId);
      }
    });
    await cdp.send('ServiceWorker.enable');

    await page.goto(`${server.url}/app/`);
    await page.getByLabel("This device's name").fill('Test iPhone');
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    const shownCode = page.getByLabel('Link code');
    await expect.poll(() => shownCode.textContent(), WAIT).toMatch(/^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/);
    const code = (await shownCode.textContent()) ?? '';

    // The person approves the code from an app that is already theirs.
    const approved = await send(server.url, 'POST', '/v1/link-approvals', {
      token: account.body.key,
      json: { code },
    });
    expect(approved.status, approved.text).toBe(201);
    expect(approved.body.device).toMatchObject({
      name: 'Test iPhone',
      platform: 'ios',
      transport: 'web_push',
    });
    await expect
      .poll(async () => [await page.getByRole('heading', { name: 'Inbox' }).isVisible(), problems], WAIT)
      .toEqual([true, []]);
    await expect.poll(() => status.textContent(), WAIT).toContain('Linked');

    const sent = await send(server.url, 'POST', '/v1/notifications', {
      token: token.body.token,
      json: {
        message: 'The build passed',
        title: 'main',
        scene: 'rocket',
        scene_params: { color: 'blue' },
        url: 'https://ci.example.com/builds/1',
        url_title: 'Build 1',
        // A tag, so the push delivered twice below is one notification, as on a phone.
        tag: 'build-1',
      },
    });
    expect(sent.status, sent.text).toBe(202);
    await push.waitFor(1);
    const [received] = push.received;
    expect(received?.status).toBe(201);
    // Served from the server's own origin: the push opens the app's page for it (Declarative Web Push).
    expect(received?.payload.notification.navigate).toBe(`${server.url}/app/?notification=${sent.body.id}`);

    const registration = registrations.find((entry) => entry.scopeURL === `${server.url}/app/`);
    expect(registration).toBeDefined();
    await expect.poll(() => activated.has(registration?.registrationId as string), WAIT).toBe(true);
    const shown = async () =>
      page.evaluate(async () => {
        const worker = await navigator.serviceWorker.getRegistration('/app/');
        const notifications = (await worker?.getNotifications()) ?? [];
        return notifications.map((notification) => ({
          title: notification.title,
          body: notification.body,
          data: notification.data,
        }));
      });
    // DevTools hands the push to the worker without saying whether it arrived: in a loaded CI run
    // one was lost with the worker activated and nothing shown. A push service retries until the
    // browser acknowledges; so does this, every 2 s, and the tag keeps it one notification.
    const deliver = () =>
      cdp.send('ServiceWorker.deliverPushMessage', {
        origin: server.url,
        registrationId: registration?.registrationId as string,
        data: JSON.stringify(received?.payload),
      });
    await expect
      .poll(
        async () => {
          const now = await shown();
          if (now.length === 0) await deliver();
          return now;
        },
        { timeout: 10_000, interval: 2_000 },
      )
      .toEqual([{ title: 'CI', body: 'main\nThe build passed', data: { id: sent.body.id } }]);

    // A tap: the worker's click handler opens the app's page for it (the browser's own tap on a
    // system notification cannot be made from here, so the handler's function is called in the
    // worker), and the page plays the scene full screen, the link a button of its own.
    const [worker] = context.serviceWorkers();
    expect(worker).toBeDefined();
    await worker?.evaluate(
      (id) =>
        (globalThis as unknown as { openNotification(id: string): Promise<unknown> }).openNotification(id),
      sent.body.id,
    );
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.isVisible(), WAIT).toBe(true);
    expect(await dialog.locator('#scene-sender').textContent()).toBe('CI');
    expect(await dialog.locator('#scene-message').textContent()).toBe('The build passed');
    expect(await dialog.getByRole('link').textContent()).toBe('ci.example.com — Build 1');
    expect(await dialog.locator('.scene').getAttribute('data-scene')).toBe('rocket');
    // Opening it was reported for this device.
    await expect
      .poll(async () => {
        const record = await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, {
          token: account.body.key,
        });
        return record.body.handled.map((event: { action: string }) => event.action);
      }, WAIT)
      .toEqual(['opened']);

    await mkdir(OUTPUT, { recursive: true });
    await page.screenshot({ path: path.join(OUTPUT, 'web-app-scene-390.png') });
    // One notification in all: no older page to offer.
    expect(await page.getByRole('button', { name: 'Show older' }).isVisible()).toBe(false);
    await dialog.getByRole('button', { name: 'Close' }).click();
    for (const width of [390, 1024, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      // Nothing wider than the screen at any width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: path.join(OUTPUT, `web-app-${width}.png`), fullPage: true });
    }

    // Cleared from the inbox: reported for this device, and gone from the list.
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect
      .poll(async () => {
        const record = await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, {
          token: account.body.key,
        });
        return record.body.handled.map((event: { action: string }) => event.action).sort();
      }, WAIT)
      .toEqual(['cleared', 'opened']);
    await expect.poll(() => page.locator('#items li').count(), WAIT).toBe(0);

    // The browser replaced its subscription: the app registers the new one when next opened, and
    // the next push goes there.
    const renewed = push.subscribe();
    await page.evaluate((json) => localStorage.setItem('test.subscription', JSON.stringify(json)), renewed);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Inbox' }).isVisible(), WAIT).toBe(true);
    const again = await send(server.url, 'POST', '/v1/notifications', {
      token: token.body.token,
      json: { message: 'To the renewed subscription' },
    });
    expect(again.status).toBe(202);
    await push.waitFor(2);
    expect(push.pushesTo(renewed).map((one) => one.payload.notification.body)).toEqual([
      'To the renewed subscription',
    ]);

    // It approves another device's code, renames itself, and leaves.
    const other = await send(server.url, 'POST', '/v1/link-requests', {
      json: { device_id: 'other-install-1', name: 'iPad', platform: 'ios', push_token: 'ab'.repeat(32) },
    });
    await page.getByLabel('Link another device: its code').fill(other.body.code.toLowerCase());
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => status.textContent(), WAIT).toBe('iPad is linked to your account.');
    await page.getByLabel('Name', { exact: true }).fill('Work iPhone');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => page.locator('#device-name').textContent(), WAIT).toBe('Work iPhone');

    // It moves to another account: asked twice (to move, and to leave an account with a send token
    // behind), it shows a new code, and the other account approves it.
    const other_account = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const questions: string[] = [];
    const answer = (question: { message(): string; accept(): Promise<void> }) => {
      questions.push(question.message());
      void question.accept();
    };
    page.on('dialog', answer);
    await page.getByRole('button', { name: 'Move this device to another account' }).click();
    const switchCode = page.getByLabel('Link code');
    await expect.poll(() => switchCode.isVisible(), WAIT).toBe(true);
    expect(questions).toEqual([
      'Move this device to another account? You approve its code from that account.',
      'This account still has 1 send tokens and 1 other devices. Leave it anyway?',
    ]);
    const moved = await send(server.url, 'POST', '/v1/link-approvals', {
      token: other_account.body.key,
      json: { code: await switchCode.textContent() },
    });
    expect(moved.status, moved.text).toBe(201);
    await expect.poll(() => status.textContent(), WAIT).toContain('Linked');
    const left = await send(server.url, 'GET', '/v1/devices', { token: account.body.key });
    expect(left.body.devices.map((one: { name: string; active: boolean }) => [one.name, one.active])).toEqual(
      [
        ['Work iPhone', false],
        ['iPad', true],
      ],
    );

    // And leaves that one.
    await page.getByRole('button', { name: 'Remove this device from my account' }).click();
    await expect.poll(() => status.textContent(), WAIT).toBe('This device left its account.');
    const devices = await send(server.url, 'GET', '/v1/devices', { token: other_account.body.key });
    expect(
      devices.body.devices.map((one: { name: string; active: boolean }) => [one.name, one.active]),
    ).toEqual([['Work iPhone', false]]);
  }, 60_000);
});
