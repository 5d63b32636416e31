import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config/server-settings.js';
import { ADMIN_COMMANDS } from '../../src/main/admin/commands.js';

/**
 * docs/iphone.md as a reader follows it: every foxbell-server line in it is one the server takes
 * (its settings read without a problem) or an admin command that exists, with its arguments. The
 * web app's own steps are the browser test's (test/web-app/); the HTTPS front is deploy.md's,
 * which the reverse-proxy test runs.
 */
const GUIDE = readFileSync(new URL('../../../../docs/iphone.md', import.meta.url), 'utf8');
const commands = [...GUIDE.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap(([, block]) => (block as string).split('\n'))
  .map((line) => line.replace(/\s+#.*$/, '').trim())
  .filter((line) => line.startsWith('foxbell-server '))
  .map((line) => line.split(/\s+/).slice(1));

describe('the iPhone guide', () => {
  it('gives server command lines the server takes, and admin commands that exist', () => {
    expect(commands.length).toBeGreaterThan(5);
    for (const args of commands) {
      if (args[0] === 'admin') {
        const words = args.slice(1).filter((word) => !word.startsWith('--'));
        const command = ADMIN_COMMANDS.find((candidate) => words.join(' ').startsWith(candidate.name));
        expect(command, args.join(' ')).toBeDefined();
        continue;
      }
      const read = readConfig(args, { FOXBELL_ADMIN_KEY: 'a-guide-admin-key-of-32-characters-x' });
      expect([args.join(' '), read.ok, read.ok === false ? read.problems : []]).toEqual([
        args.join(' '),
        true,
        [],
      ]);
    }
  });

  it('links the web app at /app/ and uses the settings it names', () => {
    expect(GUIDE).toContain('https://foxbell.example.com/app/');
    expect(commands.some((args) => args.includes('--web-push-subject'))).toBe(true);
    expect(commands.some((args) => args.join(' ').startsWith('admin link approve'))).toBe(true);
  });
});
