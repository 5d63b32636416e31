import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config/server-settings.js';
import { ADMIN_COMMANDS } from '../../src/main/admin/commands.js';

/**
 * docs/iphone.md as a reader follows it, read: every foxbell-server line in it is one the server
 * takes or an admin command that exists, and every picture in it is one the web app's tests make
 * (`picture(…)` in test/web-app/), so none shows a screen the app no longer has. The guide's
 * commands are run, in order, by test/main/iphone-guide.process.test.ts.
 */
const GUIDE = readFileSync(new URL('../../../../docs/iphone.md', import.meta.url), 'utf8');
const commands = [...GUIDE.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap(([, block]) => (block as string).split('\n'))
  .map((line) =>
    line
      .replace(/\s+#.*$/, '')
      .replace(/^sudo /, '')
      .trim(),
  )
  .filter((line) => line.startsWith('foxbell-server '))
  .map((line) => line.split(/\s+/).slice(1));

const WEB_APP_TESTS = new URL('../web-app/', import.meta.url);
const pictured = new Set(
  readdirSync(WEB_APP_TESTS)
    .filter((file) => file.endsWith('.test.ts'))
    // Every name quoted in a picture(…) call (a literal, or each side of a choice between two).
    .flatMap((file) => [
      ...readFileSync(new URL(file, WEB_APP_TESTS), 'utf8').matchAll(/picture\(([^;]*?)\);/g),
    ])
    .flatMap(([, call]) => [...(call as string).matchAll(/'([\w-]+)'/g)].map(([, name]) => name as string)),
);

describe('the iPhone guide', () => {
  it('gives admin commands that exist, with the account key from the environment', () => {
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const args of commands) {
      expect(args[0], args.join(' ')).toBe('admin');
      const words = args.slice(1).filter((word) => !word.startsWith('--'));
      const command = ADMIN_COMMANDS.find((candidate) => words.join(' ').startsWith(candidate.name));
      expect(command, args.join(' ')).toBeDefined();
    }
  });

  it('sets the server up with settings it takes: the env file the unit reads', () => {
    const envFile = /printf '(FOXBELL_[^']+)' \| sudo tee \/etc\/foxbell\/foxbell\.env/.exec(GUIDE)?.[1];
    expect(envFile).toBeDefined();
    const env = Object.fromEntries(
      (envFile as string)
        .split('\\n')
        .filter((pair) => pair !== '')
        .map((pair) => pair.split('=') as [string, string]),
    );
    expect(env.FOXBELL_WEB_PUSH_SUBJECT).toMatch(/^mailto:/);
    expect(readConfig([], { ...env, FOXBELL_ADMIN_KEY: 'a-guide-admin-key-of-32-characters-x' }).ok).toBe(
      true,
    );
  });

  it('says which placeholders are yours to replace just above the commands that hold them, not after', () => {
    const PLACEHOLDERS = ['push.example.com', 'you@example.com', 'fox_acct_…', 'fox_send_…', 'K7QM-3XPA'];
    const blocks = [...GUIDE.matchAll(/```sh\n([\s\S]*?)```/g)];
    let checked = 0;
    for (const [index, block] of blocks.entries()) {
      const commands = block[1] as string;
      // What a reader has just read: the text between the previous block and this one.
      const previous = blocks[index - 1];
      const before = GUIDE.slice(
        previous ? (previous.index as number) + previous[0].length : 0,
        block.index as number,
      );
      const note = /\*\*Replace first:\*\*([^\n]*(?:\n(?!\n)[^\n]*)*)\n\n$/.exec(before)?.[1];
      const held = PLACEHOLDERS.filter((placeholder) => commands.includes(placeholder));
      if (held.length === 0) {
        expect(note, commands).toBeUndefined();
        continue;
      }
      checked += 1;
      for (const placeholder of held) expect(note, commands).toContain(`\`${placeholder}\``);
    }
    expect(checked).toBe(5);
  });

  it("shows only pictures the web app's tests make, and each of them is committed", () => {
    const shown = [...GUIDE.matchAll(/\]\(images\/iphone\/([\w-]+)\.png\)/g)].map(
      ([, name]) => name as string,
    );
    expect(shown.length).toBeGreaterThan(6);
    for (const name of shown) {
      expect(pictured.has(name), `${name}: made by no picture() in test/web-app`).toBe(true);
      expect(existsSync(new URL(`../../../../docs/images/iphone/${name}.png`, import.meta.url)), name).toBe(
        true,
      );
    }
  });
});
