import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@foxbell/test-support/ports';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HISTORY_LENGTH } from '../../src/dev/page-routes.js';
import { send } from '../helpers.js';
import { startProcess, tempDir } from '../processes.js';

const CHROMIUM = process.env.FOXBELL_CHROMIUM ?? '/usr/bin/chromium';
/** Pictures of the page at the widths people use, to look at after a run. */
const OUTPUT = fileURLToPath(new URL('../../test-output', import.meta.url));

/** One Chromium for the file's tests, each in a context (a browser profile) of its own. */
let browser: Promise<Browser> | undefined;
const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});
afterAll(async () => {
  // A launch that failed failed its test already.
  await (await browser?.catch(() => undefined))?.close();
});

async function newPage(viewport: { width: number; height: number }): Promise<Page> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set FOXBELL_CHROMIUM)`);
  }
  browser ??= chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const context = await (await browser).newContext({ viewport });
  contexts.push(context);
  return context.newPage();
}

async function devServer(dir: string, port = 0) {
  const server = await startProcess(['--dev', '--data', dir, '--log-level', 'warn', '--port', String(port)]);
  // Kept in dev.json from the first start on: a later start does not print it again.
  const saved = JSON.parse(await readFile(path.join(dir, 'dev.json'), 'utf8'));
  return { server, token: saved.token as string, accountKey: saved.account_key as string };
}

async function sendAll(url: string, token: string, sends: Record<string, unknown>[]) {
  for (const json of sends) {
    const reply = await send(url, 'POST', '/v1/notifications', { token, json });
    expect(reply.status, reply.text).toBe(202);
  }
}

const device = (page: Page, name: string) =>
  page.locator('section.device', { has: page.getByRole('heading', { name, exact: true }) });

/**
 * Waits until the browser has reported every request the page made so far: it makes one more, of
 * its own, and that one is seen last (a request that should not have happened is then counted).
 */
async function requestsSeen(page: Page, requests: string[]) {
  const marks = requests.filter((url) => url === '/healthz').length;
  // Made whether or not the server is up: a refused one is reported too.
  await page.evaluate(() =>
    fetch('/healthz').then(
      (response) => response.status,
      () => 0,
    ),
  );
  await expect.poll(() => requests.filter((url) => url === '/healthz').length).toBe(marks + 1);
}

/** How long the page may take to draw its devices: a loaded machine has taken over the default 1 s. */
const LOADED = { timeout: 10_000 };

const LONG = Array.from({ length: 40 }, (_, i) => `line ${i + 1} of a long log excerpt`).join('\n');

describe('the device page in Chromium', () => {
  it('draws the recent history, backs off while the server is down, and picks up again after a restart', async () => {
    const dir = await tempDir();
    // From below the system's own range: the server restarts on it, and a port the system picked
    // could meanwhile be taken by any connection or listen of the other test file.
    const port = await freePort();
    const first = await devServer(dir, port);
    await sendAll(first.server.url, first.token, [
      { message: LONG, scene: 'campfire', target: 'vision' },
      { message: 'No title on this one', scene: 'fireworks', scene_params: { bursts: 4 } },
      {
        message: 'Somebody is at the garage door.',
        title: 'Garage',
        scene: 'garage',
        scene_params: { doorState: 'opening' },
        target: 'watch',
        url: 'https://reports.example.com/cameras/garage',
        url_title: 'Camera',
      },
      { message: 'Weekly report', title: 'Reports', level: 'passive', target: 'iphone' },
    ]);
    // Delivered before the page opens: all it shows comes from the history.
    await expect
      .poll(
        async () => {
          const inbox = await send(first.server.url, 'GET', '/v1/inbox', { token: first.accountKey });
          return inbox.body.items.filter((item: { status: string }) => item.status === 'sent_to_push').length;
        },
        { timeout: 10_000 },
      )
      .toBe(4);

    const page = await newPage({ width: 1024, height: 768 });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    // Hold the stream back a moment, to see the page while it connects.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The page's timers on a clock of the test's, so that their waits (polls, retries) can be
    // skipped rather than sat through; it runs as the system's until the test pauses it.
    await page.clock.install();
    await page.route('**/dev/pushes', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${first.server.url}/devices`);
    // The devices are drawn from the session; the stream, held back, has not said anything yet.
    await expect.poll(() => page.locator('section.device').count(), LOADED).toBe(3);
    expect(await page.locator('#connection').textContent()).toBe('Connecting…');
    expect(await page.locator('.empty:visible').count()).toBe(0);
    release();

    const iphone = device(page, 'iPhone');
    const watch = device(page, 'Apple Watch');
    const vision = device(page, 'Vision Pro');
    await expect
      .poll(() => page.locator('#connection').textContent())
      .toBe('Live: showing what the APNs simulator delivers.');
    expect(await iphone.locator('.notification .body').allTextContents()).toEqual([
      'Weekly report',
      'No title on this one',
    ]);
    expect(await watch.locator('.notification').count()).toBe(2);
    expect(await vision.locator('.notification').count()).toBe(2);

    // At 1024 px all three devices are side by side, above the fold.
    for (const section of [iphone, watch, vision]) {
      const box = await section.boundingBox();
      expect(box && box.y + 200 < 768 && box.x + box.width <= 1024, JSON.stringify(box)).toBe(true);
    }

    // An untitled notification shows its scene's name, as a label.
    const untitled = iphone.locator('.notification', { hasText: 'No title on this one' }).locator('.title');
    expect([await untitled.textContent(), await untitled.getAttribute('class')]).toEqual([
      'Fireworks',
      'title untitled',
    ]);

    // A long message is a few lines deep, with a button for the rest.
    const long = vision.locator('.notification', { hasText: 'line 1 of' });
    const body = long.locator('.body');
    expect(await body.getAttribute('class')).toBe('body clamped');
    const clampedHeight = (await body.boundingBox())?.height ?? 0;
    await long.getByRole('button', { name: 'Show more' }).click();
    expect(await body.getAttribute('class')).toBe('body');
    expect((await body.boundingBox())?.height).toBeGreaterThan(clampedHeight * 5);
    expect(await long.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');

    // On the watch: the link's domain on one line, the state on one line, the door's label clear
    // of the roof.
    const garage = watch.locator('.notification', { hasText: 'garage door' });
    const lines = await garage.evaluate((card) => {
      const linesOf = (node: Element | null) => {
        const range = document.createRange();
        range.selectNodeContents(node as Element);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
      };
      const label = card.querySelector('.label') as SVGTextElement;
      return {
        domain: linesOf(card.querySelector('.domain')),
        state: linesOf(card.querySelector('.state')),
        labelLeft: label.getBBox().x,
      };
    });
    expect(lines).toMatchObject({ domain: 1, state: 1 });
    expect(lines.labelLeft).toBeGreaterThan(140);

    // Clear leaves nothing to press; a quiet card is not dimmed as a cleared one is.
    const report = iphone.locator('.notification', { hasText: 'Weekly report' });
    expect(await report.evaluate((card) => getComputedStyle(card).opacity)).toBe('1');
    await report.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => report.getAttribute('class')).toContain('cleared');
    expect(await report.getByRole('button', { name: 'Clear' }).isDisabled()).toBe(true);
    expect(await report.getByRole('button', { name: 'Open' }).isDisabled()).toBe(true);
    // And so they stay once the record, read again, says cleared.
    await expect.poll(() => report.locator('.state').textContent()).toContain('cleared');
    expect(await report.getByRole('button', { name: 'Clear' }).isDisabled()).toBe(true);

    // From here on the page's time moves only when the test moves it (from a second ahead: a
    // pause cannot go back to a moment that passed while it was asked for).
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    // Settled records are not polled again: five seconds of the page's time, two polls and more.
    const polled = () => requests.filter((url) => url.startsWith('/dev/notifications/')).length;
    await requestsSeen(page, requests);
    const before = polled();
    await page.clock.runFor(5000);
    await requestsSeen(page, requests);
    expect(polled()).toBe(before);

    await mkdir(OUTPUT, { recursive: true });
    for (const [width, height] of [
      [1400, 900],
      [1024, 768],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth, `nothing cut off sideways at ${width} px`).toBeLessThanOrEqual(
        innerWidth as number,
      );
      await page.screenshot({ path: path.join(OUTPUT, `device-page-${width}.png`), fullPage: width === 390 });
    }
    await page.setViewportSize({ width: 1024, height: 768 });

    // The server goes away: a line says so, the page retries with growing waits and throws nothing.
    first.server.child.kill('SIGKILL');
    await first.server.exited;
    await expect
      .poll(() => page.locator('#connection').textContent())
      .toMatch(/^Connection lost: trying again in \d+ s…$/);
    const down = requests.length;
    const tries = () => requests.slice(down).filter((url) => url === '/dev/pushes').length;
    // Waits of 1, 2 and 4 s, each said: three tries in seven seconds, and no polling meanwhile.
    for (const [index, seconds] of [1, 2, 4].entries()) {
      await expect
        .poll(() => page.locator('#connection').textContent())
        .toBe(`Connection lost: trying again in ${seconds} s…`);
      expect(tries()).toBe(index);
      await page.clock.fastForward(seconds * 1000);
      await expect.poll(() => tries()).toBe(index + 1);
    }
    await expect
      .poll(() => page.locator('#connection').textContent())
      .toBe('Connection lost: trying again in 8 s…');
    await requestsSeen(page, requests);
    expect(tries()).toBe(3);
    expect(requests.slice(down).filter((url) => url.startsWith('/dev/notifications/'))).toEqual([]);
    expect(errors).toEqual([]);

    // Back on the same port and data: the page finds it, and the history is there again.
    const second = await devServer(dir, port);
    await sendAll(second.server.url, second.token, [{ message: 'After the restart', target: 'iphone' }]);
    // The 8 s wait it said, over; from here on the page's time runs as the system's again.
    await page.clock.fastForward(8000);
    await page.clock.resume();
    await expect
      .poll(() => iphone.locator('.notification .body').allTextContents(), { timeout: 20_000 })
      .toEqual(['After the restart', 'Weekly report', 'No title on this one']);
    expect(await page.locator('#connection').textContent()).toBe(
      'Live: showing what the APNs simulator delivers.',
    );
    expect(errors).toEqual([]);
    expect(HISTORY_LENGTH).toBe(50);
  }, 90_000);
});

describe('linking a device from the device page', () => {
  it("approves a device's code for the dev account and draws it beside the simulated ones", async () => {
    const { server } = await devServer(await tempDir());
    const page = await newPage({ width: 1024, height: 800 });
    await page.goto(`${server.url}/devices`);
    await expect.poll(() => page.locator('section.device').count(), LOADED).toBe(3);
    const link = await send(server.url, 'POST', '/v1/link-requests', {
      json: {
        device_id: 'browser-install-1',
        name: 'My laptop',
        platform: 'ios',
        web_push: {
          endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
          keys: {
            // A real P-256 point (the generator) and 16 bytes.
            p256dh: 'BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU',
            auth: 'AAAAAAAAAAAAAAAAAAAAAA',
          },
        },
      },
    });
    expect(link.status, link.text).toBe(201);
    await page.getByLabel(/Link a device/).fill(link.body.code);
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('#link-result').textContent()).toBe('My laptop is linked');
    const laptop = device(page, 'My laptop');
    await expect.poll(() => laptop.getByText('Reached by Web Push').isVisible()).toBe(true);
    // A real device says when its app was last seen; the simulated ones do not.
    expect(await laptop.locator('.device-seen').textContent()).toBe('not seen yet');
    expect(await page.locator('.device-seen').count()).toBe(1);
    const { device_key: key } = (
      await send(server.url, 'GET', `/v1/link-requests/${link.body.id}`, { token: link.body.secret })
    ).body;
    await send(server.url, 'GET', '/v1/inbox', { token: key });
    await page.reload();
    await expect
      .poll(() => device(page, 'My laptop').locator('.device-seen').textContent())
      .toBe('seen just now');
  }, 30_000);
});
