// The fast tier's setup file (vitest.config.ts, FOXBELL_TIER=fast): every test file of the tier
// runs under the guard.
import { vi } from 'vitest';
import { installFastTierGuard } from './fast-tier.js';

// The tier's workers run one file after another (`isolate: false`), so that what every file
// imports from node_modules (Fastify, Zod, pino, the SQLite driver) loads once per worker: loading
// it again for each file, in a worker of its own, was a fifth of the tier's time. The workspace's
// own modules are still evaluated afresh for each file, as in a worker of its own: their state, and
// the hooks they register when imported (a test server closed after each test), are the file's.
vi.resetModules();

// Once per worker, not once per file: the guard would otherwise wrap itself.
const installed = Symbol.for('foxbell.fast-tier-guard');
const worker = globalThis as { [installed]?: true };
if (!worker[installed]) {
  installFastTierGuard();
  worker[installed] = true;
}
