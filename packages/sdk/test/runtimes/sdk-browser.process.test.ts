import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServerWithToken } from '@foxbell/test-support';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const CHROMIUM = process.env.FOXBELL_CHROMIUM ?? '/usr/bin/chromium';
const SDK = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/**
 * The SDK in a browser, bundled as a web app would bundle it. The service sends no CORS headers,
 * so the test page is served from the server's own origin (Chromium's request routing responds to
 * for that one path); `docs/sdk.md` says why a send token does not belong in a public page.
 */
describe('the SDK in Chromium, against a real foxbell-server', () => {
  it('sends, waits for sent_to_push, raises a ValidationError before sending and a NotFoundError', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set FOXBELL_CHROMIUM)`);
    }
    const { server, token } = await startServerWithToken();
    const bundle = await build({
      entryPoints: [SDK],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.route(`${server.url}/sdk-test/**`, (route) => {
        const url = new URL(route.request().url());
        if (url.pathname.endsWith('.js')) {
          return route.fulfill({ contentType: 'text/javascript', body: bundle.outputFiles[0]?.text ?? '' });
        }
        return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>SDK</title>' });
      });
      await page.goto(`${server.url}/sdk-test/index.html`);
      // Page code as text: the test runner would rewrite a dynamic import() in a function.
      const result = await page.evaluate(`(async () => {
        const { Foxbell, NotFoundError, ValidationError } = await import('/sdk-test/sdk.js');
        const client = new Foxbell({ token: ${JSON.stringify(token)}, baseUrl: location.origin });
        const sent = await client.send({ message: 'from Chromium', scene: 'rocket' });
        const record = await client.waitFor(sent.id, { until: 'sent_to_push', intervalMs: 50, timeoutMs: 10000 });
        const invalid = await client.send({ message: '' }).catch((error) => error);
        const missing = await client.status('ntf_0000000000000000000000').catch((error) => error);
        return {
          status: record.status,
          validation: invalid instanceof ValidationError ? invalid.code : String(invalid),
          notFound: missing instanceof NotFoundError ? missing.code : String(missing),
        };
      })()`);
      expect(result).toEqual({ status: 'sent_to_push', validation: 'invalid_field', notFound: 'not_found' });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
