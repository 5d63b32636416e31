import type { Dialect } from '../sql/plan.js';
import { settings } from '../sql/settings.js';

/** Any process may pause sends: the pause is read from the database. */
export const postgresSettings = (d: Dialect) => settings(d, false);
