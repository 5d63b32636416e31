import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import {
  type App,
  approveShownCode,
  appServerForAll,
  backToTheApp,
  LAN_NAME,
  openApp,
  picture,
  startAppServer,
  turnOn,
  WAIT,
  withAccount,
} from './app-in-chromium.js';

/**
 * Every state a phone can put the web app in, each said in the app's own words (never an API
 * message), and pictured at 390 px for docs/iphone.md.
 */

/**
 * The file's server, for the tests that leave it as found: each opens a browser context of its own
 * and, once linked, an account of its own. A test that stops the server, or needs it started with
 * other settings, starts its own.
 */
const shared = appServerForAll();

/** The page's whole text has none of these API messages in it. */
async function expectNoApiMessage(app: App, ...messages: string[]) {
  const text = (await app.page.locator('body').textContent()) ?? '';
  for (const message of messages) expect(text).not.toContain(message);
}

describe('the web app before it can receive', () => {
  it('in a Safari tab on an iPhone: says to add it to the Home Screen first, with the steps', async () => {
    const { server } = shared();
    const app = await openApp(server.url, { iphone: true, colorScheme: 'light' });
    await app.page.goto(`${server.url}/app/`);
    await expect
      .poll(
        () => app.page.getByRole('heading', { name: 'Add Foxbell to your Home Screen' }).isVisible(),
        WAIT,
      )
      .toBe(true);
    const steps = await app.page.locator('#install ol li').allTextContents();
    expect(steps.map((step) => step.replace(/\s+/g, ' ').trim())).toEqual([
      "Tap Share in Safari's toolbar.",
      'Scroll down and tap Add to Home Screen, then Add.',
      'Open Foxbell from your Home Screen, and continue there.',
    ]);
    await picture(app.page, 'safari-tab');
    // Opened from the Home Screen, the same page asks for a name.
    const installed = await openApp(server.url, { iphone: true, fromHomeScreen: true, colorScheme: 'light' });
    await installed.page.goto(`${server.url}/app/`);
    await expect
      .poll(() => installed.page.getByLabel("This device's name").inputValue(), WAIT)
      .toBe('iPhone');
    await picture(installed.page, 'setup');
    expect([...app.problems, ...installed.problems]).toEqual([]);
  });

  it('over plain http on a name of the network: says HTTPS is needed, and why', async () => {
    const { server } = shared();
    const plain = `http://${LAN_NAME}:${new URL(server.url).port}`;
    const app = await openApp(plain, { iphone: true, fromHomeScreen: true });
    await app.page.goto(`${plain}/app/`);
    await expect
      .poll(() => app.page.getByRole('heading', { name: 'This address is not secure' }).isVisible(), WAIT)
      .toBe(true);
    expect(await app.page.locator('#insecure-address').textContent()).toBe(plain);
    expect(await app.page.locator('#insecure').textContent()).toContain('starts with https://');
    await picture(app.page, 'not-https');
  });

  it('notifications denied: says where to turn them on, and checks again', async () => {
    const { server } = shared();
    const app = await openApp(server.url, { iphone: true, fromHomeScreen: true, permission: 'denied' });
    await app.page.goto(`${server.url}/app/`);
    await expect
      .poll(
        () => app.page.getByRole('heading', { name: 'Notifications are off for Foxbell' }).isVisible(),
        WAIT,
      )
      .toBe(true);
    // Two places to turn them on, one of which is this device's: a list of ways, not numbered steps.
    const ways = app.page.locator('#denied').getByRole('list');
    expect(await ways.evaluate((list) => [list.tagName, getComputedStyle(list).listStyleType])).toEqual([
      'UL',
      'none',
    ]);
    expect(
      (await ways.getByRole('listitem').allTextContents()).map((way) => way.replace(/\s+/g, ' ')),
    ).toEqual([
      'On an iPhone or iPad Open Settings, tap Notifications, then Foxbell, and turn on Allow Notifications.',
      "In a browser Open the site's settings (the icon left of the address), and allow notifications.",
    ]);
    await picture(app.page, 'denied');
    const again = app.page.getByRole('button', { name: 'I turned them on' });
    await again.click();
    expect(await app.resultOf(again)).toMatchObject({
      text: 'Notifications are still off for Foxbell. Turn them on in Settings first.',
      tone: 'warning',
      role: 'status',
      inView: true,
    });
    await picture(app.page, 'denied-still-off');
  });

  it('a subscribe that hangs: progress at once, then says so and offers a way out', async () => {
    const { server } = shared();
    // The page's clock is moved on past the app's 8 s rather than waited out.
    const app = await openApp(server.url, {
      iphone: true,
      fromHomeScreen: true,
      subscription: 'hang',
      movableClock: true,
    });
    await app.page.goto(`${server.url}/app/`);
    await turnOn(app);
    await expect
      .poll(() => app.page.locator('#setup-progress-text').textContent(), WAIT)
      .toBe('Turning on notifications…');
    await picture(app.page, 'turning-on');
    await app.context.clock.fastForward('00:08');
    await expect
      .poll(() => app.page.locator('#setup-progress-text').textContent(), WAIT)
      .toBe('This is taking longer than it should. You can wait, or cancel and try again.');
    await picture(app.page, 'slow');
    await app.page.getByRole('button', { name: 'Cancel' }).click();
    expect(await app.resultOf(app.page.getByRole('button', { name: 'Turn on notifications' }))).toMatchObject(
      {
        text: 'Cancelled. Check that this device is online, then try again.',
        tone: 'info',
        inView: true,
      },
    );
    expect(await app.page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
    expect(await app.page.getByRole('button', { name: 'Turn on notifications' }).isVisible()).toBe(true);
  }, 40_000);

  it("the server unreachable: says so in the app's words, with a way to try again", async () => {
    const { server } = await startAppServer();
    const app = await openApp(server.url, { iphone: true, fromHomeScreen: true, movableClock: true });
    await app.page.goto(`${server.url}/app/`);
    await expect.poll(() => app.page.getByLabel("This device's name").isVisible(), WAIT).toBe(true);
    server.child.kill('SIGKILL');
    await server.exited;
    await turnOn(app);
    // The device client's retries wait 1, 2 and 4 s: on the page's clock, moved on at each look.
    await expect
      .poll(async () => {
        await app.context.clock.fastForward(1000);
        return app.said();
      }, WAIT)
      .toBe("Foxbell's server cannot be reached right now. Check your connection, then try again.");
    // Below the button it is about, as an error.
    expect(await app.resultOf(app.page.getByRole('button', { name: 'Turn on notifications' }))).toMatchObject(
      {
        tone: 'error',
        inView: true,
      },
    );
    expect(await app.page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
    await expectNoApiMessage(app, 'Failed to fetch', 'fetch failed');
    await picture(app.page, 'unreachable');
  }, 40_000);
});

describe('the web app linked', () => {
  it('an empty inbox, the code screen and the inbox, in light and dark; "Linked" goes once something arrives', async () => {
    const { server, push, account, token } = await withAccount(shared());
    const apps: App[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const app = await openApp(server.url, {
        iphone: true,
        fromHomeScreen: true,
        colorScheme,
        subscription: push.subscribe(),
        movableClock: true,
      });
      apps.push(app);
      await app.page.goto(`${server.url}/app/`);
      await turnOn(app, `iPhone ${colorScheme}`);
      await expect.poll(() => app.page.getByLabel('Link code').textContent(), WAIT).toMatch(/-/);
      await picture(app.page, colorScheme === 'light' ? 'code-light' : 'code-dark');
      await approveShownCode(app, server.url, account.key);
      await expect.poll(() => app.page.locator('#empty').isVisible(), WAIT).toBe(true);
      expect(await app.page.locator('#empty').textContent()).toContain('Nothing yet.');
      expect(await app.said()).toBe('Linked. What is sent to you now arrives here.');
      await picture(app.page, `empty-${colorScheme}`);
    }
    await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: { message: 'The backup finished: 12 GB in 4 minutes.', title: 'Backups', scene: 'campfire' },
    });
    for (const app of apps) {
      // Back to the app: the notification is in, and "Linked" has done its work.
      await backToTheApp(app);
      await expect.poll(() => app.page.locator('#items .item').count(), WAIT).toBe(1);
      expect(await app.said()).toBe('');
      expect(app.problems).toEqual([]);
    }
    await picture((apps[1] as App).page, 'inbox-dark');
  }, 60_000);

  it('offline: opens from what it kept, the last inbox with a banner, and catches up once online', async () => {
    const { server, push, account, token } = await withAccount(shared());
    const app = await openApp(server.url, {
      iphone: true,
      fromHomeScreen: true,
      subscription: push.subscribe(),
      movableClock: true,
    });
    await app.page.goto(`${server.url}/app/`);
    await turnOn(app);
    await approveShownCode(app, server.url, account.key);
    await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: { message: 'Kept for later', title: 'Garage' },
    });
    // Back to the app (iOS makes it visible again): what came meanwhile is read at once.
    await backToTheApp(app);
    await expect
      .poll(() => app.page.locator('#items li .message').allTextContents(), WAIT)
      .toEqual(['Kept for later']);
    await app.context.setOffline(true);
    await app.page.reload();
    await expect
      .poll(() => app.said(), WAIT)
      .toBe("You're offline. Showing what arrived before; new notifications still reach this device.");
    expect(await app.page.locator('#items li .message').allTextContents()).toEqual(['Kept for later']);
    await picture(app.page, 'offline');
    // A rename tried offline says so next to it, as an error…
    const rename = app.page.getByRole('button', { name: 'Rename' });
    await app.page.getByLabel('Name', { exact: true }).fill('Kitchen iPhone');
    await rename.click();
    await expect
      .poll(async () => (await app.resultOf(rename))?.text, WAIT)
      .toBe("You're offline. Connect to the internet, then try again.");
    await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'Sent while offline' } });
    await app.context.setOffline(false);
    await expect
      .poll(() => app.page.locator('#items li .message').allTextContents(), WAIT)
      .toEqual(['Sent while offline', 'Kept for later']);
    // …and once back online, nothing says it is offline any more.
    expect(await app.said()).toBe('');
    expect(await app.resultOf(rename)).toBeUndefined();
  }, 60_000);

  it('a subscription gone (410): shows that nothing arrives, and turns notifications on again', async () => {
    const { server, push, account, token } = await withAccount(shared());
    const first = push.subscribe();
    const app = await openApp(server.url, {
      iphone: true,
      fromHomeScreen: true,
      subscription: first,
      movableClock: true,
    });
    await app.page.goto(`${server.url}/app/`);
    await turnOn(app);
    await approveShownCode(app, server.url, account.key);
    // iOS dropped it without a word: the push service responds with 410 and the server deactivates it.
    push.script(first, { status: 410 });
    await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'lost' } });
    await expect.poll(() => push.pushesTo(first).length, WAIT).toBe(1);
    await expect
      .poll(
        async () =>
          (await send(server.url, 'GET', '/v1/devices', { token: account.key })).body.devices[0].active,
        WAIT,
      )
      .toBe(false);
    await app.page.reload();
    // Why, in the contract's words (inactiveInWords of subscription_gone); what to do is the button.
    await expect
      .poll(() => app.said(), WAIT)
      .toBe(
        'Notifications stopped reaching this device: its notifications were turned off or its subscription was dropped.',
      );
    expect(await app.page.getByRole('alert').textContent()).toContain('Turn notifications on again');
    await picture(app.page, 'stopped');
    // A new subscription from the browser, registered: pushes reach it again.
    const renewed = push.subscribe();
    await app.page.evaluate((json) => localStorage.setItem('test.renewal', JSON.stringify(json)), renewed);
    const turnOnAgain = app.page.getByRole('button', { name: 'Turn notifications on again' });
    await turnOnAgain.click();
    await expect.poll(() => app.said(), WAIT).toBe('Notifications are on again.');
    // Where the banner and its button were (hidden now, so found by id), as a success.
    expect(await app.resultOf(app.page.locator('#resubscribe'))).toMatchObject({
      text: 'Notifications are on again.',
      tone: 'success',
      inView: true,
    });
    expect(
      (await send(server.url, 'GET', '/v1/devices', { token: account.key })).body.devices[0].active,
    ).toBe(true);
    await send(server.url, 'POST', '/v1/notifications', { token, json: { message: 'back' } });
    await expect.poll(() => push.pushesTo(renewed).length, WAIT).toBe(1);
    expect(push.pushesTo(renewed).map((one) => one.status)).toEqual([201]);
    expect(push.pushesTo(first).map((one) => one.status)).toEqual([410]);
    expect(app.problems).toEqual([]);
  }, 60_000);

  it("a code wrong, expired or locked: said in the app's words", async () => {
    const { server, push, account } = await startAppServer(['--link-code-seconds', '1']);
    // Expired: made first, its second running out while the app is set up, approved after it.
    const late = await send(server.url, 'POST', '/v1/link-requests', {
      json: { device_id: 'late-device-1', name: 'iPad', platform: 'ios', push_token: 'ab'.repeat(32) },
    });
    const app = await openApp(server.url, {
      iphone: true,
      fromHomeScreen: true,
      subscription: push.subscribe(),
      movableClock: true,
    });
    await app.page.goto(`${server.url}/app/`);
    await turnOn(app);
    await approveShownCode(app, server.url, account.key);
    const approveButton = app.page.getByRole('button', { name: 'Approve' });
    const approve = async (code: string) => {
      await app.page.getByLabel('Link another device: the code it shows').fill(code);
      await approveButton.click();
    };
    const result = async () => (await app.resultOf(approveButton))?.text;
    await expect
      .poll(
        async () =>
          (await send(server.url, 'GET', `/v1/link-requests/${late.body.id}`, { token: late.body.secret }))
            .body.state,
        WAIT,
      )
      .toBe('expired');
    await approve(late.body.code);
    await expect.poll(result, WAIT).toBe('That code has expired. Make a new one on the other device.');
    await approve('ABCD-EFGH');
    await expect
      .poll(result, WAIT)
      .toBe('No device is showing that code. Check it: codes have no 0, O, 1, I or L.');
    await picture(app.page, 'code-wrong');
    await expectNoApiMessage(app, 'no link request has this code', 'this link code expired');
    for (let wrong = 0; wrong < 4; wrong += 1) await approve(`ABCD-EFG${wrong + 2}`);
    await approve('ABCD-EFGZ');
    await expect.poll(result, WAIT).toBe('Too many wrong codes. You can approve again in 10 minutes.');
    await expectNoApiMessage(app, 'too many wrong link codes');
  }, 60_000);

  it('plays a scene still for a person who asked for reduced motion, its parameters as sent', async () => {
    const { server, push, account, token } = await withAccount(shared());
    const app = await openApp(server.url, {
      iphone: true,
      fromHomeScreen: true,
      subscription: push.subscribe(),
      reducedMotion: true,
      movableClock: true,
    });
    await app.page.goto(`${server.url}/app/`);
    await turnOn(app);
    await approveShownCode(app, server.url, account.key);
    await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: { message: 'Happy new year!', scene: 'fireworks', scene_params: { bursts: 5 } },
    });
    await app.page.reload();
    await app.page.locator('#items li .open').first().click();
    const scene = app.page.locator('#scene-art');
    await expect.poll(() => scene.getAttribute('data-motion'), WAIT).toBe('reduced');
    expect(await scene.locator('.burst').count()).toBe(5);
    const still = await scene
      .locator('.burst')
      .first()
      .evaluate((burst) => {
        const style = getComputedStyle(burst);
        return [style.animationName, style.opacity];
      });
    expect(still).toEqual(['none', '1']);
    expect(await app.page.locator('.fox-tail').evaluate((tail) => getComputedStyle(tail).animationName)).toBe(
      'none',
    );
    await picture(app.page, 'scene-fireworks');
  }, 60_000);
});
