import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { backToTheApp, linkedIphone, picture, startAppServer, WAIT } from './app-in-chromium.js';

/**
 * Feedback where the person is looking: each action's result next to its control, in view and
 * announced (a live region), its tone told by an icon as well as a colour; the "Linked" news gone
 * once something arrives; a newly linked device's inbox marking what came before it.
 */

async function linked(colorScheme: 'light' | 'dark' = 'dark') {
  const started = await startAppServer();
  const app = await linkedIphone(started, { colorScheme });
  return { ...started, app };
}

/** WCAG's contrast ratio of two `rgb(…)` colours. */
function contrast(one: string, other: string): number {
  const luminance = (color: string) => {
    const [r, g, b] = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const c = Number(part) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

describe('feedback where the person is looking', () => {
  it('Rename, "Link another device" and Move say their result right below the control, in view, each tone with its own icon', async () => {
    const { server, token, app } = await linked();
    // A full inbox: the device's controls are below the fold of a 390 px phone.
    for (let n = 1; n <= 6; n += 1) {
      await send(server.url, 'POST', '/v1/notifications', { token, json: { message: `Build ${n} passed` } });
    }
    await backToTheApp(app);
    await expect.poll(() => app.page.locator('#items .item').count(), WAIT).toBe(6);

    const rename = app.page.getByRole('button', { name: 'Rename' });
    await app.page.getByLabel('Name', { exact: true }).fill('Work iPhone');
    await rename.click();
    await expect
      .poll(() => app.resultOf(rename), WAIT)
      .toMatchObject({
        text: 'Renamed. This device is “Work iPhone” now.',
        tone: 'success',
        role: 'status',
        inView: true,
      });
    const renamed = await app.resultOf(rename);
    expect(renamed?.below).toBeGreaterThanOrEqual(0);
    expect(renamed?.below).toBeLessThan(24);
    await picture(app.page, 'renamed');

    const approve = app.page.getByRole('button', { name: 'Approve' });
    const code = app.page.getByLabel('Link another device: the code it shows');
    await code.fill('ABCD-EFGH');
    await approve.click();
    await expect.poll(async () => (await app.resultOf(approve))?.tone, WAIT).toBe('error');
    const wrong = await app.resultOf(approve);
    expect(wrong).toMatchObject({
      text: 'No device is showing that code. Check it: codes have no 0, O, 1, I or L.',
      role: 'status',
      inView: true,
    });
    expect(wrong?.below).toBeLessThan(24);
    const other = await send(server.url, 'POST', '/v1/link-requests', {
      json: { device_id: 'other-install-1', name: 'iPad', platform: 'ios', push_token: 'ab'.repeat(32) },
    });
    await code.fill(other.body.code);
    await approve.click();
    await expect
      .poll(() => app.resultOf(approve), WAIT)
      .toMatchObject({
        text: 'iPad is linked to your account.',
        tone: 'success',
        inView: true,
      });
    await picture(app.page, 'approved');

    // Move with notifications off on this device: a warning, below the two actions.
    await app.page.evaluate(async () =>
      (
        await (await navigator.serviceWorker.getRegistration('/app/'))?.pushManager.getSubscription()
      )?.unsubscribe(),
    );
    app.page.on('dialog', (question) => void question.accept());
    const move = app.page.getByRole('button', { name: 'Move this device to another account' });
    await move.click();
    await expect
      .poll(() => app.resultOf(move), WAIT)
      .toMatchObject({
        text: 'Notifications are off on this device. Turn them on again first.',
        tone: 'warning',
        role: 'status',
        inView: true,
      });
    await picture(app.page, 'move-warning');

    // Told apart by more than colour: each tone draws its own icon.
    const icons = [renamed?.icon, wrong?.icon, (await app.resultOf(move))?.icon];
    expect(new Set(icons).size).toBe(3);
    for (const icon of icons) expect(icon).toMatch(/^url\("data:image\/svg\+xml,/);
    for (const width of [1024, 1400]) {
      await app.page.setViewportSize({ width, height: 900 });
      expect(await app.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
        true,
      );
      await picture(app.page, `results-${width}`);
    }
    expect(app.problems).toEqual([]);
  }, 90_000);

  it('a newly linked device: "Linked" until something arrives, and its inbox marks what the account was sent before it joined', async () => {
    const started = await startAppServer();
    const { server, push, token } = started;
    for (const message of ['Sent before, first', 'Sent before, second']) {
      await send(server.url, 'POST', '/v1/notifications', { token, json: { message, title: 'Earlier' } });
    }
    const app = await linkedIphone(started, { name: 'New iPhone' });
    const rows = () =>
      app.page
        .locator('#items > li')
        .evaluateAll((items) =>
          items.map((item) =>
            item.classList.contains('joined')
              ? `— ${item.querySelector('.joined-title')?.textContent} —`
              : item.querySelector('.message')?.textContent,
          ),
        );
    // The inbox is the account's: what it was sent before this device joined is listed, marked.
    await expect
      .poll(rows, WAIT)
      .toEqual(['— Sent before this device was linked —', 'Sent before, second', 'Sent before, first']);
    expect(await app.page.locator('.joined-hint').textContent()).toMatch(
      /^It was linked on [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M\. Your account's inbox keeps 30 days; these did not show on this device as notifications\.$/,
    );
    expect(await app.said()).toBe('Linked. What is sent to you now arrives here.');
    await picture(app.page, 'linked-joined');

    // The first notification since: shown above the line, and "Linked" has done its work.
    const sent = await send(server.url, 'POST', '/v1/notifications', {
      token,
      json: { message: 'The first since' },
    });
    await push.waitFor(1);
    await app.deliver(push.received[0]?.payload);
    await expect
      .poll(rows, WAIT)
      .toEqual([
        'The first since',
        '— Sent before this device was linked —',
        'Sent before, second',
        'Sent before, first',
      ]);
    expect(sent.status).toBe(202);
    expect(await app.said()).toBe('');
    await picture(app.page, 'inbox-joined');
    for (const width of [1024, 1400]) {
      await app.page.setViewportSize({ width, height: 900 });
      await picture(app.page, `inbox-joined-${width}`);
    }
    expect(app.problems).toEqual([]);
  }, 60_000);

  it("the scene's Close button: its focus ring stands out on the scene's night, in light mode as in dark", async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { server, token, app } = await linked(colorScheme);
      await send(server.url, 'POST', '/v1/notifications', {
        token,
        json: { message: 'Launch', scene: 'rocket', url: 'https://ci.example.com/1' },
      });
      await backToTheApp(app);
      await app.page.locator('#items .item .open').first().click();
      const close = app.page.getByRole('dialog').getByRole('button', { name: 'Close' });
      // Reached with the keyboard, as a person using one does: from the link to Close.
      await app.page.getByRole('dialog').getByRole('link').focus();
      await app.page.keyboard.press('Tab');
      expect(await close.evaluate((button) => button.matches(':focus-visible'))).toBe(true);
      const [ring, ground] = await close.evaluate((button) => [
        getComputedStyle(button).outlineColor,
        getComputedStyle(button.closest('.scene-text') as Element).backgroundColor,
      ]);
      expect(contrast(ring as string, ground as string)).toBeGreaterThanOrEqual(4.5);
      await picture(app.page, `scene-close-focus-${colorScheme}`);
      await app.page.keyboard.press('Escape');
    }
  }, 90_000);
});
