import { describe, expect, it } from 'vitest';

/**
 * The scenes' module (web-app/scenes.js, served to the browser as it is): what a notification's
 * values choose. Its pure part runs here; the scenes it draws are the Chromium tests'.
 */
// Plain JavaScript for the browser, checked by web-app/tsconfig.json rather than this package's:
// imported by its address, its one function used here typed as that check knows it.
const { bellColor }: { bellColor(value: unknown): string } = await import(
  new URL('../../web-app/scenes.js', import.meta.url).href
);

describe("a notification's bell colour", () => {
  it('is a named colour, a #rrggbb, or gold for anything else, never a member of Object.prototype', () => {
    expect(bellColor('red')).toBe('#e5484d');
    expect(bellColor('#A1b2C3')).toBe('#A1b2C3');
    for (const other of [undefined, null, 5, '#abc', 'purple', 'constructor', 'toString', '__proto__']) {
      expect(bellColor(other), String(other)).toBe('#e8b931');
    }
  });
});
