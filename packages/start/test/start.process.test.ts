import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@foxbell/test-support/ports';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const notifyBin = path.join(root, 'packages/cli/bin.cjs');
const CHROMIUM = process.env.FOXBELL_CHROMIUM ?? '/usr/bin/chromium';
/** How long the page may take to draw a send: a loaded machine has taken over the default 1 s. */
const LOADED = { timeout: 10_000 };
/** Where the browser test leaves its screenshot. */
const OUTPUT = fileURLToPath(new URL('../test-output/', import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

const running: ChildProcess[] = [];
const homes: string[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // pnpm, tsx and the server are one process group: stop them all.
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  }
  // Once nothing runs in them any more.
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

/** A folder of the test's own (the data, notify's profile), removed after the test. */
async function tempHome(): Promise<string> {
  const home = await mkdtemp(path.join(tmpdir(), 'foxbell-start-'));
  homes.push(home);
  return home;
}

/** `pnpm start` with these arguments in a folder of its own, its stdout and stderr collected together. */
function spawnStart(home: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn('pnpm', ['start', ...args], {
    cwd: root,
    detached: true,
    env: {
      ...process.env,
      ...env,
      FOXBELL_DATA: path.join(home, 'data'),
      NOTIFY_CONFIG: path.join(home, 'notify.json'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

/** `pnpm start`, as a newcomer runs it, in a folder of its own; resolves once it has said what to try. */
async function pnpmStart(home: string, args: string[] = []): Promise<Started> {
  const { child, output } = spawnStart(home, args, { FOXBELL_PORT: '0' });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pnpm start said nothing to try:\n${output()}`)), 45_000);
    child.stdout?.on('data', () => {
      if (/npx notify (status|send) .+ --wait/.test(output())) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`pnpm start exited with ${code}:\n${output()}`)));
  });
  const url = /listening on (http:\/\/\S+)/.exec(output())?.[1] as string;
  return { child, url, output };
}

/** `pnpm start` that must stop before it serves: its exit code and what it printed. */
async function pnpmStartFailing(
  home: string,
  args: string[],
): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnStart(home, args);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, output: output() };
}

/** Runs the built notify with this test's profile file. */
function notify(home: string, args: string[]) {
  const result = spawnSync(process.execPath, [notifyBin, ...args], {
    env: { ...process.env, NOTIFY_CONFIG: path.join(home, 'notify.json'), CI: 'true' },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function statusOf(home: string, id: string) {
  const result = notify(home, ['status', id, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('pnpm start', () => {
  it('starts the service with a dev account, saves notify’s profile and sends a welcome, once', async () => {
    const home = await tempHome();
    const first = await pnpmStart(home);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const out = first.output();
    expect(out).toContain(`foxbell-server listening on ${first.url}\n`);
    expect(out).toContain(`Devices:  ${first.url}/devices`);
    const saved = JSON.parse(await readFile(path.join(home, 'data', 'dev.json'), 'utf8'));
    expect(out).toContain(`Token:    ${saved.token}   (kept in `);
    expect(out).not.toContain('shown once');
    expect(out).toContain('npx notify send "Build passed" --scene rocket');
    expect(out).toContain(`curl "${first.url}/v1/send/${saved.token}?message=Hello"`);
    const welcome = /notify status (ntf_\w+) --wait/.exec(out)?.[1] as string;

    // notify works with no flags: the profile points at this server.
    const profile = JSON.parse(await readFile(path.join(home, 'notify.json'), 'utf8'));
    expect(profile.profiles.default).toEqual({ base_url: first.url, token: saved.token });
    // sent_to_push comes with the first device's response: wait until no push is still in flight.
    const delivered = await waitFor('the welcome to reach the devices', async () => {
      const record = await statusOf(home, welcome);
      const settled = record.destinations.every(
        (d: { state: string }) => !['pending', 'sending'].includes(d.state),
      );
      return record.status === 'sent_to_push' && settled ? record : undefined;
    });
    expect(
      delivered.destinations.map((d: { platform: string; state: string }) => [d.platform, d.state]),
    ).toEqual([
      ['ios', 'accepted'],
      ['watchos', 'accepted'],
      ['visionos', 'accepted'],
    ]);

    process.kill(-(first.child.pid as number), 'SIGTERM');
    await new Promise((resolve) => first.child.once('exit', resolve));

    // The second start reuses everything, shows no token and sends no second welcome.
    const second = await pnpmStart(home);
    expect(second.output()).not.toContain(saved.token);
    expect(second.output()).toContain(`Token:    in ${path.join(home, 'data', 'dev.json')}`);
    // Every hint works as printed: curl reads the token from a file of its own.
    const headers = path.join(home, 'data', 'curl-headers');
    const curlLine = `curl -H @"${headers}" -d '{"message":"Hello"}' ${second.url}/v1/notifications`;
    expect(second.output()).toContain(`\n    ${curlLine}\n`);
    expect(second.output()).toContain('\n    npx notify send "Deploy done" --scene fireworks --wait\n');
    expect(second.output()).not.toContain('$(');
    expect((await stat(headers)).mode & 0o777).toBe(0o600);
    const curl = spawnSync('bash', ['-c', `${curlLine} --silent --write-out ' %{http_code}'`], {
      encoding: 'utf8',
    });
    expect(curl.stdout).toMatch(/^\{"id":"ntf_\w+","status":"accepted","request_id":"req_\w+"\} 202$/);
    const devices = notify(home, ['devices', '--json']);
    expect(JSON.parse(devices.stdout)).toHaveLength(3);
  });

  it("keeps the user's own default notify profile: the dev one is saved as `dev`, and it says so", async () => {
    const home = await tempHome();
    const own = { base_url: 'https://foxbell.example.com', token: `fox_send_${'a'.repeat(32)}` };
    await writeFile(path.join(home, 'notify.json'), JSON.stringify({ profiles: { default: own } }));
    const started = await pnpmStart(home);
    const profiles = JSON.parse(await readFile(path.join(home, 'notify.json'), 'utf8')).profiles;
    const saved = JSON.parse(await readFile(path.join(home, 'data', 'dev.json'), 'utf8'));
    expect(profiles).toEqual({ default: own, dev: { base_url: started.url, token: saved.token } });
    expect(started.output()).toContain(
      "saved as notify's profile dev (your default profile is left as it was)",
    );
    expect(started.output()).toContain(
      'npx notify send "Build passed" --scene rocket --param color=green --profile dev\n',
    );
    expect(started.output()).toContain('Sent a welcome notification');
    const devices = spawnSync(process.execPath, [notifyBin, 'devices', '--json'], {
      env: {
        ...process.env,
        NOTIFY_CONFIG: path.join(home, 'notify.json'),
        NOTIFY_PROFILE: 'dev',
        CI: 'true',
      },
      encoding: 'utf8',
    });
    expect(JSON.parse(devices.stdout)).toHaveLength(3);
  });

  it('takes --port, and says in one line what to do about a taken port or a second start; Ctrl-C stops it with 0', async () => {
    const home = await tempHome();
    const port = await freePort();
    const first = await pnpmStart(home, ['--port', String(port)]);
    expect(first.url).toBe(`http://127.0.0.1:${port}`);

    // Three starts that stop at once, each on its own (a data folder in use, a port taken, a
    // misspelt flag): run side by side.
    const elsewhere = await tempHome();
    const [again, taken, wrong] = await Promise.all([
      pnpmStartFailing(home, ['--port', String(port)]),
      pnpmStartFailing(elsewhere, ['--port', String(port)]),
      pnpmStartFailing(elsewhere, ['--prot', '1']),
    ]);
    expect(again.code).toBe(2);
    expect(again.output).toContain(
      `pnpm start: pnpm start is already running at http://127.0.0.1:${port} (its data in ${path.join(home, 'data')}): open that one, or stop it (Ctrl-C in its terminal) first\n`,
    );
    expect(taken.code).toBe(2);
    expect(taken.output).toContain(
      `pnpm start: port ${port} is taken (another pnpm start, or another program): stop it, or run \`pnpm start --port ${port + 1}\`\n`,
    );
    expect(taken.output).not.toMatch(/\n\s+at /);
    expect([wrong.code, wrong.output]).toEqual([2, expect.stringContaining('pnpm start takes --port N')]);

    const exited = new Promise<number | null>((resolve) => first.child.once('exit', resolve));
    process.kill(-(first.child.pid as number), 'SIGINT');
    expect(await exited).toBe(0);
    // Said once, however often the signal came.
    expect(first.output().split('Stopping Foxbell').length - 1).toBe(1);
    expect(first.output()).toContain(`Stopping Foxbell: your data stays in ${path.join(home, 'data')}\n`);
  });

  it('shows each send on the right simulated devices, live, and reports Open through the API', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set FOXBELL_CHROMIUM)`);
    }
    const home = await tempHome();
    const { url } = await pnpmStart(home);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
      // The page's timers on a clock of the test's, running as the system's: the picture below
      // skips the rocket's countdown rather than sitting through it.
      await page.clock.install();
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(`${url}/`) && !request.url().startsWith('data:'))
          elsewhere.push(request.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${url}/devices`);
      const iphone = page.locator('section.device', { has: page.getByRole('heading', { name: 'iPhone' }) });
      const watch = page.locator('section.device', {
        has: page.getByRole('heading', { name: 'Apple Watch' }),
      });
      const vision = page.locator('section.device', {
        has: page.getByRole('heading', { name: 'Vision Pro' }),
      });
      // The welcome is on all three.
      for (const device of [iphone, watch, vision]) {
        await expect
          .poll(() => device.locator('.notification .title').allTextContents(), LOADED)
          .toEqual(['Welcome to Foxbell']);
      }

      const sent = notify(home, [
        'send',
        'Deploy done',
        '--scene',
        'rocket',
        '--param',
        'color=green',
        '--json',
      ]);
      expect(sent.code, sent.stderr).toBe(0);
      const id = JSON.parse(sent.stdout).id as string;
      const watchOnly = notify(home, [
        'send',
        'Door is opening',
        '--scene',
        'garage',
        '--param',
        'doorState=opening',
        '--target',
        'watch',
        '--level',
        'time-sensitive',
        '--json',
      ]);
      expect(watchOnly.code, watchOnly.stderr).toBe(0);

      for (const device of [iphone, watch, vision]) {
        const card = device.locator(`.notification[data-id="${id}"]`);
        await expect.poll(() => card.locator('.body').textContent(), LOADED).toBe('Deploy done');
        expect(await card.locator('.scene').getAttribute('data-scene')).toBe('rocket');
        expect(await card.locator('.rocket path').first().getAttribute('fill')).toBe('#30a46c');
      }
      const door = watch.locator('.notification', { hasText: 'Door is opening' });
      await expect.poll(() => door.count(), LOADED).toBe(1);
      expect(await door.locator('.door').getAttribute('class')).toBe('door door-opening');
      expect(await door.getAttribute('class')).toContain('level-time-sensitive');
      expect(await iphone.locator('.notification', { hasText: 'Door is opening' }).count()).toBe(0);
      expect(await vision.locator('.notification', { hasText: 'Door is opening' }).count()).toBe(0);

      // Open on the iPhone, from the keyboard: the status record says opened.
      const card = iphone.locator(`.notification[data-id="${id}"]`);
      await card.getByRole('button', { name: 'Open' }).focus();
      await page.keyboard.press('Enter');
      const opened = await waitFor('opened', async () => {
        const record = await statusOf(home, id);
        return record.status === 'opened' ? record : undefined;
      });
      expect(opened.handled).toEqual([expect.objectContaining({ action: 'opened', platform: 'ios' })]);
      await expect.poll(() => card.getAttribute('class'), LOADED).toContain('opened');

      // Clear on the watch, by pointer this time: cleared is further along than opened.
      await watch.locator(`.notification[data-id="${id}"]`).getByRole('button', { name: 'Clear' }).click();
      await waitFor('cleared', async () => {
        const record = await statusOf(home, id);
        return record.status === 'cleared' ? record : undefined;
      });

      // One group is one thread; a newer send with a tag replaces the older on the device.
      for (const message of ['Build 1 running', 'Build 1 passed']) {
        const tagged = notify(home, [
          'send',
          message,
          '--group',
          'ci',
          '--tag',
          'build-1',
          '--target',
          'iphone',
        ]);
        expect(tagged.code, tagged.stderr).toBe(0);
      }
      const linked = notify(home, [
        ...['send', 'Tests passed', '--group', 'ci', '--target', 'iphone', '--level', 'passive'],
        ...['--url', 'https://ci.example.com/runs/812', '--url-title', 'Open the run'],
      ]);
      expect(linked.code, linked.stderr).toBe(0);
      const thread = iphone.locator('.thread');
      await expect
        .poll(() => thread.locator('.notification .body').allTextContents(), LOADED)
        .toEqual(['Tests passed', 'Build 1 passed']);
      expect(await thread.locator('.thread-name').textContent()).toBe('ci · 2');
      expect(await thread.locator('.notification', { hasText: 'Build 1 passed' }).textContent()).toContain(
        'Replaced an earlier one',
      );
      const passive = thread.locator('.notification', { hasText: 'Tests passed' });
      expect(await passive.getAttribute('class')).toContain('level-passive');
      const link = passive.locator('a.link');
      expect(await link.textContent()).toBe('ci.example.com Open the run');
      // Tapping the notification itself opens nothing.
      await passive.locator('.body').click();
      expect(page.url()).toBe(`${url}/devices`);
      expect(browser.contexts()[0]?.pages()).toHaveLength(1);

      await mkdir(OUTPUT, { recursive: true });
      // The rocket's countdown (three ticks of 0.7 s) over, and its lift-off at its end, for the picture.
      await page.clock.runFor(2500);
      await page.evaluate(() => {
        for (const screen of document.querySelectorAll('.screen')) screen.scrollTop = 0;
      });
      await page.screenshot({
        path: path.join(OUTPUT, 'device-page.png'),
        fullPage: true,
        animations: 'disabled',
      });

      // Readable at a phone's width: the devices stack and nothing is cut off sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      expect(widths[0]).toBeLessThanOrEqual(widths[1] as number);

      expect(elsewhere).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
