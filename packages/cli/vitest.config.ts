import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'cli',
    include: ['test/**/*.test.ts'],
    // The servers the files share (test/global-setup.ts).
    globalSetup: ['./test/global-setup.ts'],
    // Every test spawns the built `notify`; a cold start under load can take a few seconds.
    testTimeout: 30_000,
  },
});
