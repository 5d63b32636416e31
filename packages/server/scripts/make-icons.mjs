// Renders web-app/icon.svg into the PNG icons a Home Screen needs (iOS takes no SVG icon), with
// the Chromium the tests use. Run again after changing the icon: node scripts/make-icons.mjs
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const dir = new URL('../web-app/', import.meta.url);
const svg = readFileSync(new URL('icon.svg', dir), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.FOXBELL_CHROMIUM ?? '/usr/bin/chromium',
});
try {
  for (const size of [180, 192, 512]) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`,
    );
    await page.screenshot({ path: new URL(`icon-${size}.png`, dir).pathname, omitBackground: true });
    await page.close();
  }
} finally {
  await browser.close();
}
