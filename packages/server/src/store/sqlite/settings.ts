import type { Dialect } from '../sql/plan.js';
import { settings } from '../sql/settings.js';

/** Only the one `api` process writes the pause: it keeps a copy. */
export const sqliteSettings = (d: Dialect) => settings(d, true);
