import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'sdk',
    include: ['test/**/*.test.ts'],
    // Bun, Deno and workerd: the project sdk-runtimes (`pnpm test:runtimes`), which installs them.
    exclude: ['**/node_modules/**', 'test/**/*.runtimes.test.ts'],
  },
});
