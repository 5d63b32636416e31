import type { Clock } from '../kernel/clock.js';
import { randomIds } from '../kernel/ids.js';
import type { Store } from '../store/store.js';
import { seedDevAccount } from './seed.js';
import { devSessionFile, writeDevSession } from './session.js';

/**
 * Seeds the dev account on the first start in dev mode, and says where everything is. The send
 * token is shown on the start that made it; later starts point at the file that keeps it.
 */
export async function devModeBanner(
  store: Store,
  clock: Clock,
  dataDir: string,
  url: string,
  adminKey: string | undefined,
): Promise<string> {
  const devFile = devSessionFile(dataDir);
  const seeded = await seedDevAccount(store, randomIds, clock);
  if (seeded) await writeDevSession(dataDir, seeded);
  return [
    'Foxbell dev mode',
    `  base URL:    ${url}`,
    `  device page: ${url}/devices`,
    `  send token:  ${seeded ? seeded.token : `in ${devFile}`}`,
    ...(adminKey === undefined ? [] : [`  admin key:   ${adminKey}`]),
    `  secrets are kept in ${devFile}`,
    '',
  ].join('\n');
}
