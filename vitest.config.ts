import { defineConfig } from 'vitest/config';

// One project per package; `pnpm test` runs them all, `vitest run --project sdk` one of them.
export default defineConfig({
  test: {
    projects: ['packages/*'],
  },
});
