// The fast tier's setup file (vitest.config.ts, FOXBELL_TIER=fast): every test file of the tier
// runs under the guard.
import { installFastTierGuard } from './fast-tier.js';

installFastTierGuard();
