import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN } from '../processes.js';
import { approveShownCode, openApp, picture, startAppServer, WAIT } from './app-in-chromium.js';

/**
 * The Foxbell web app in real Chromium against a real foxbell-server (app-in-chromium.ts): linking,
 * pushes shown whatever the app's state, the inbox kept current, the scene, moving and leaving.
 */

describe('the web app in Chromium', () => {
  it('links itself with a code, shows a push with its sender, adds it to the open inbox at once, and plays its scene', async () => {
    const { server, push, account, token } = await startAppServer();
    const subscription = push.subscribe();
    const app = await openApp(server.url, { subscription, movableClock: true });
    const { page } = app;

    await page.goto(`${server.url}/app/`);
    await page.getByLabel("This device's name").fill('Test iPhone');
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await expect
      .poll(() => page.locator('#linking-how').textContent(), WAIT)
      .toMatch(/^Approve it from a device that is already yours/);
    await approveShownCode(app, server.url, account.key);
    await expect.poll(() => app.said(), WAIT).toBe('Linked. What is sent to you now arrives here.');
    expect(await page.locator('#device-name').textContent()).toBe('Test iPhone');
    const devices = await send(server.url, 'GET', '/v1/devices', { token: account.key });
    expect(devices.body.devices).toEqual([
      expect.objectContaining({ name: 'Test iPhone', platform: 'ios', transport: 'web_push', active: true }),
    ]);
    await expect.poll(() => page.locator('#empty').isVisible(), WAIT).toBe(true);

    const sent = await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: {
        message: 'The build passed',
        title: 'main',
        scene: 'rocket',
        scene_params: { color: 'blue', countdown: 2 },
        url: 'https://ci.example.com/builds/1',
        url_title: 'Build 1',
        tag: 'build-1',
      },
    });
    expect(sent.status, sent.text).toBe(202);
    await push.waitFor(1);
    const [received] = push.received;
    expect(received?.status).toBe(201);
    // Served from the server's own origin: the push opens the app's page for it (Declarative
    // Web Push), and says how many came since the app was last open.
    expect(received?.payload.notification).toMatchObject({
      navigate: `${server.url}/app/?notification=${sent.body.id}`,
      app_badge: 1,
    });
    // Delivered to the worker, as the push service would: shown, and in the open inbox at once.
    await app.deliver(received?.payload);
    await expect
      .poll(() => app.shown(), WAIT)
      .toEqual([
        {
          title: 'CI',
          body: 'main\nThe build passed',
          tag: 'build-1',
          silent: false,
          data: { id: sent.body.id },
        },
      ]);
    await expect
      .poll(() => page.locator('#items li .message').allTextContents(), WAIT)
      .toEqual(['The build passed']);
    expect(await page.locator('#empty').isVisible()).toBe(false);
    await picture(page, 'inbox');

    // A tap: the worker's click handler opens the app's page for it (a tap on a system
    // notification cannot be made from here, so the handler's function is called in the worker),
    // and the page plays the scene full screen, the link a button of its own.
    const [worker] = app.context.serviceWorkers();
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
    // Its parameters: a blue rocket that counts down from 2, then lifts off.
    expect(await dialog.locator('.rocket path').first().getAttribute('fill')).toBe('#3e8ef7');
    await expect.poll(() => dialog.locator('.countdown').textContent(), WAIT).toBe('Liftoff');
    // Full screen: the scene fills the screen above its words.
    const stage = await dialog.locator('.scene svg').boundingBox();
    expect(stage?.width).toBe(390);
    expect(stage?.height).toBeGreaterThan(420);
    await expect
      .poll(async () => {
        const record = await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, {
          token: account.key,
        });
        return record.body.handled.map((event: { action: string }) => event.action);
      }, WAIT)
      .toEqual(['opened']);
    await picture(page, 'scene');
    await page.setViewportSize({ width: 1400, height: 900 });
    await picture(page, 'scene-1400');
    await dialog.getByRole('button', { name: 'Close' }).click();
    for (const width of [390, 1024, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      // Nothing wider than the screen at any width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await picture(page, `linked-${width}`);
    }
    await page.setViewportSize({ width: 390, height: 844 });

    // Cleared from the inbox: reported for this device, and gone from the list.
    await page.getByRole('button', { name: 'Clear the notification from CI' }).click();
    await expect
      .poll(async () => {
        const record = await send(server.url, 'GET', `/v1/notifications/${sent.body.id}/status`, {
          token: account.key,
        });
        return record.body.handled.map((event: { action: string }) => event.action).sort();
      }, WAIT)
      .toEqual(['cleared', 'opened']);
    await expect.poll(() => page.locator('#items .item').count(), WAIT).toBe(0);

    // The browser replaced its subscription: the app registers the new one when next opened, and
    // the next push goes there.
    const renewed = push.subscribe();
    await page.evaluate((json) => localStorage.setItem('test.subscription', JSON.stringify(json)), renewed);
    await page.reload();
    await expect
      .poll(
        () => page.evaluate(() => JSON.parse(localStorage.getItem('foxbell.device') ?? '{}').endpoint),
        WAIT,
      )
      .toBe(renewed.endpoint);
    const again = await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: { message: 'To the renewed subscription' },
    });
    expect(again.status).toBe(202);
    await push.waitFor(2);
    expect(push.pushesTo(renewed).map((one) => one.payload.notification.body)).toEqual([
      'To the renewed subscription',
    ]);

    // It approves another device's code and renames itself.
    const other = await send(server.url, 'POST', '/v1/link-requests', {
      json: { device_id: 'other-install-1', name: 'iPad', platform: 'ios', push_token: 'ab'.repeat(32) },
    });
    await page.getByLabel('Link another device: the code it shows').fill(other.body.code.toLowerCase());
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.click();
    await expect
      .poll(async () => (await app.resultOf(approve))?.text, WAIT)
      .toBe('iPad is linked to your account.');
    await page.getByLabel('Name', { exact: true }).fill('Work iPhone');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => page.locator('#device-name').textContent(), WAIT).toBe('Work iPhone');

    // It moves to another account: asked twice (to move, and to leave an account with a send
    // token behind), it shows a code that says where to approve it.
    const otherAccount = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const questions: string[] = [];
    page.on('dialog', (question) => {
      questions.push(question.message());
      void question.accept();
    });
    await page.getByRole('button', { name: 'Move this device to another account' }).click();
    await expect
      .poll(() => page.getByRole('heading', { name: 'Approve the move with this code' }).isVisible(), WAIT)
      .toBe(true);
    expect(await page.locator('#linking-how').textContent()).toMatch(
      /^Approve it from the account you are moving to/,
    );
    expect(questions).toEqual([
      'Move this device to another account? You approve its code from that account.',
      'Your current account still has 1 send token and 1 other device. Leave it anyway?',
    ]);
    await picture(page, 'moving');
    await approveShownCode(app, server.url, otherAccount.body.key);
    await expect
      .poll(() => app.said(), WAIT)
      .toBe('Moved. What is sent to you in the new account now arrives here.');
    const left = await send(server.url, 'GET', '/v1/devices', { token: account.key });
    expect(left.body.devices.map((one: { name: string; active: boolean }) => [one.name, one.active])).toEqual(
      [
        ['Work iPhone', false],
        ['iPad', true],
      ],
    );

    // And leaves that one: the header no longer names it, and it asks to be linked again.
    await page.getByRole('button', { name: 'Remove this device from my account' }).click();
    await expect
      .poll(() => app.said(), WAIT)
      .toBe('This device left its account. Link it again to receive notifications here.');
    expect(await page.locator('#device-name').textContent()).toBe('');
    expect(await page.getByRole('heading', { name: 'Get your notifications here' }).isVisible()).toBe(true);
    const devicesLeft = await send(server.url, 'GET', '/v1/devices', { token: otherAccount.body.key });
    expect(
      devicesLeft.body.devices.map((one: { name: string; active: boolean }) => [one.name, one.active]),
    ).toEqual([['Work iPhone', false]]);
    expect(app.problems).toEqual([]);
  }, 90_000);

  it('shows every push, whatever the app is doing and whatever the payload: none is silent', async () => {
    const { server, push, account, token } = await startAppServer();
    const app = await openApp(server.url, { subscription: push.subscribe(), movableClock: true });
    const { page, context } = app;
    await page.goto(`${server.url}/app/`);
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await approveShownCode(app, server.url, account.key);

    /** Sends, and hands what reached the push service to the worker: the payload the server made. */
    const pushOf = async (json: Record<string, unknown>) => {
      const before = push.received.length;
      const sent = await send(server.url, 'POST', '/v1/notifications', { token, json });
      expect(sent.status, sent.text).toBe(202);
      await push.waitFor(before + 1);
      return push.received[before]?.payload;
    };
    // Open and in front.
    await app.deliver(await pushOf({ message: 'while open', tag: 'state' }));
    await expect.poll(async () => (await app.shown()).map((one) => one.body), WAIT).toEqual(['while open']);
    // A newer send with the tag replaces the older: one notification, the newer text.
    await app.deliver(await pushOf({ message: 'replaced by the newer', tag: 'state' }));
    await expect
      .poll(async () => (await app.shown()).map((one) => [one.tag, one.body]), WAIT)
      .toEqual([['state', 'replaced by the newer']]);
    await app.clearShown();
    // In the background: another tab in front.
    const other = await context.newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    const long = 'é'.repeat(1990);
    const longPayload = await pushOf({ message: long, level: 'passive', sound: 'none' });
    expect(longPayload.foxbell.truncated).toBe(true);
    await app.deliver(longPayload);
    await expect
      .poll(async () => (await app.shown()).map((one) => [one.body.endsWith('…'), one.silent]), WAIT)
      .toEqual([[true, true]]);
    await app.clearShown();
    // Closed: no window of the app at all.
    await page.close();
    await app.deliver(await pushOf({ message: 'while closed', level: 'time-sensitive' }));
    await expect.poll(async () => (await app.shown()).map((one) => one.body), WAIT).toEqual(['while closed']);
    await app.clearShown();
    // A payload that cannot be read at all: still a notification, never nothing.
    await app.deliver('not a payload of ours');
    await expect.poll(async () => (await app.shown()).map((one) => one.title), WAIT).toEqual(['Foxbell']);
    expect(app.problems).toEqual([]);
  }, 60_000);
});
