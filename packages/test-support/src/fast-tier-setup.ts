// The fast tier's setup file (vitest.config.ts, FOXBELL_TIER=fast): every test file of the tier
// runs under the guard.
import { installFastTierGuard } from './fast-tier.js';

// Once per worker, which runs many files, not once per file: the guard would wrap itself.
const installed = Symbol.for('foxbell.fast-tier-guard');
const worker = globalThis as { [installed]?: true };
if (!worker[installed]) {
  installFastTierGuard();
  worker[installed] = true;
}
