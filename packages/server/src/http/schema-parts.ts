import * as z from 'zod';
import type { IdPrefix } from '../kernel/ids.js';

// What the response schemas share. Each rule the document states (a pattern, a format) is
// metadata: the document shows it, and serialization, which checks nothing, is not slowed by it.

/** `YYYY-MM-DDTHH:MM:SS.mmmZ`, the one timestamp form of the interface (kernel/clock.ts, isoTime). */
export const timestamp = z.string().meta({
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
});

/** An id with this prefix (kernel/ids.ts). */
export const idOf = (prefix: IdPrefix) => z.string().meta({ pattern: `^${prefix}_[A-Za-z0-9_-]+$` });
