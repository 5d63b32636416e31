import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'start',
    include: ['test/**/*.test.ts'],
    // Each test starts `pnpm start` and, in one, a browser.
    testTimeout: 60_000,
  },
});
