import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN } from '../processes.js';
import {
  type App,
  approveShownCode,
  appServerForAll,
  backToTheApp,
  linkedIphone,
  picture,
  WAIT,
  withAccount,
} from './app-in-chromium.js';

/**
 * A device key the server no longer takes (its account deleted, its device removed, any 401): the
 * app forgets the key and the inbox it kept, and asks to be linked again, in words. An inbox it
 * kept is never shown for another account than its own, online or offline.
 */

/** The file's server: each test deletes, removes or moves only what its own account holds. */
const shared = appServerForAll();

/** What the app keeps in localStorage: its key and the inbox it read last. */
async function kept(app: App) {
  return app.page.evaluate(() => ({
    key: JSON.parse(localStorage.getItem('foxbell.device') ?? '{}').key ?? null,
    inbox: localStorage.getItem('foxbell.inbox'),
  }));
}

/** A linked app on a phone, whose inbox shows one notification sent to an account of its own. */
async function linkedWithOne() {
  const started = await withAccount(shared());
  const { server, token } = started;
  const app = await linkedIphone(started);
  const sent = await send(server.url, 'POST', '/v1/notifications', {
    token,
    json: { message: 'The deleted account wrote this', title: 'Old' },
  });
  expect(sent.status, sent.text).toBe(202);
  await backToTheApp(app);
  await expect
    .poll(() => app.page.locator('#items li .message').allTextContents(), WAIT)
    .toEqual(['The deleted account wrote this']);
  return { ...started, app };
}

async function expectSetUpAgain(app: App, words: string) {
  await expect
    .poll(() => app.page.getByRole('heading', { name: 'Get your notifications here' }).isVisible(), WAIT)
    .toBe(true);
  expect(await app.said()).toBe(words);
  expect(await app.page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
  expect(await app.page.getByRole('heading', { name: 'Inbox' }).isVisible()).toBe(false);
  expect(await app.page.locator('#device-name').textContent()).toBe('');
  expect(await kept(app)).toEqual({ key: null, inbox: null });
}

describe('the web app when its device key ends', () => {
  it('its account deleted: forgets the key and the kept inbox, asks to be linked again, and shows none of it offline', async () => {
    const { server, account, app } = await linkedWithOne();
    const deleted = await send(server.url, 'DELETE', '/v1/account', { token: account.key });
    expect(deleted.status, deleted.text).toBe(204);
    await backToTheApp(app);
    await expectSetUpAgain(app, "This device's account was deleted. Link it to another account.");
    await picture(app.page, 'account-deleted');
    // Opened again with no network: the setup screen, never the deleted account's inbox.
    await app.context.setOffline(true);
    await app.page.reload();
    await expect
      .poll(() => app.page.getByRole('heading', { name: 'Get your notifications here' }).isVisible(), WAIT)
      .toBe(true);
    expect(await app.page.locator('body').textContent()).not.toContain('The deleted account wrote this');
    expect(app.problems).toEqual([]);
  }, 60_000);

  it('its device removed by the account: the next action (Rename) forgets it, with words, and no "Try again"', async () => {
    const { server, account, app } = await linkedWithOne();
    const devices = await send(server.url, 'GET', '/v1/devices', { token: account.key });
    const removed = await send(server.url, 'DELETE', `/v1/devices/${devices.body.devices[0].id}`, {
      token: account.key,
    });
    expect(removed.status, removed.text).toBe(204);
    await app.page.getByLabel('Name', { exact: true }).fill('Work iPhone');
    await app.page.getByRole('button', { name: 'Rename' }).click();
    await expectSetUpAgain(
      app,
      'This device was removed from its account, or moved to another. Link it again.',
    );
    expect(app.problems).toEqual([]);
  }, 60_000);

  it("moved to another account: the old account's inbox is gone at once, also when the new one cannot be read yet, and offline", async () => {
    const { server, app } = await linkedWithOne();
    const other = await send(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    app.page.on('dialog', (question) => void question.accept());
    // The new account's inbox cannot be read for now (the network drops those requests).
    await app.page.route('**/v1/inbox*', (route) => route.abort('internetdisconnected'));
    await app.page.getByRole('button', { name: 'Move this device to another account' }).click();
    await expect
      .poll(
        () => app.page.getByRole('heading', { name: 'Approve the move with this code' }).isVisible(),
        WAIT,
      )
      .toBe(true);
    await approveShownCode(app, server.url, other.body.key);
    await expect
      .poll(
        () => app.page.getByText('Moved. What is sent to you in the new account now arrives here.').count(),
        WAIT,
      )
      .toBe(1);
    expect(await app.page.locator('#items li').count()).toBe(0);
    expect(await app.page.locator('body').textContent()).not.toContain('The deleted account wrote this');
    await app.page.unroute('**/v1/inbox*');
    await app.context.setOffline(true);
    await app.page.reload();
    await expect
      .poll(() => app.said(), WAIT)
      .toBe("You're offline. Showing what arrived before; new notifications still reach this device.");
    expect(await app.page.locator('#items li').count()).toBe(0);
    expect(await app.page.getByText('Nothing yet.').isVisible()).toBe(true);
    expect(await app.page.locator('body').textContent()).not.toContain('The deleted account wrote this');
  }, 60_000);
});
