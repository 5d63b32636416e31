import { describe, expect, it } from 'vitest';
import { runBuildSteps } from '../src/build-steps.js';

const node = (code: string) => ({ command: process.execPath, args: ['-e', code], cwd: process.cwd() });

function collect(isTTY: boolean) {
  let text = '';
  return { out: { isTTY, write: (chunk: string) => (text += chunk) }, text: () => text };
}

// The builds as processes (spawnStep); the wording and the count are build-steps.test.ts's.
describe('the build steps of pnpm start, as processes', () => {
  it('says which package is building and how long each took, one line each without a terminal', async () => {
    const { out, text } = collect(false);
    const result = await runBuildSteps(
      [
        { name: '@foxbell/sdk', ...node('setTimeout(() => {}, 600)') },
        { name: '@foxbell/cli', ...node('') },
      ],
      out,
    );
    expect(result).toBeUndefined();
    expect(text()).toMatch(
      /^ {2}1\/2 @foxbell\/sdk…\n {2}1\/2 @foxbell\/sdk built in \d+ s\n {2}2\/2 @foxbell\/cli…\n {2}2\/2 @foxbell\/cli built in \d+ s\n$/,
    );
  });

  it('stops at the first build that fails, with its errors', async () => {
    const { out, text } = collect(false);
    const result = await runBuildSteps(
      [
        { name: '@foxbell/sdk', ...node("console.error('src/index.ts: error TS2322'); process.exit(2)") },
        { name: '@foxbell/cli', ...node('') },
      ],
      out,
    );
    expect(result).toEqual({ failed: '@foxbell/sdk', errors: 'src/index.ts: error TS2322\n' });
    expect(text()).toBe('  1/2 @foxbell/sdk…\n  1/2 @foxbell/sdk failed\n');
  });
});
