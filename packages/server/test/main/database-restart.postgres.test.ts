import { describe, expect, it } from 'vitest';
import {
  expectEveryAcceptedSendDelivered,
  expectOnlyRetriedResponses,
  expectStillRunning,
  sendContinuously,
  startDeployment,
} from './deployment.js';

/** Restarts in `pnpm test`; `FOXBELL_LONG=1` runs many more. */
const RESTARTS = process.env.FOXBELL_LONG ? 25 : 4;
/** How long PostgreSQL stays down in each restart, as an operator's restart or a failover takes. */
const DOWN_MS = 3_000;

describe('PostgreSQL restarting under load, with two API processes and two workers', () => {
  it(
    `keeps every process running and loses nothing over ${RESTARTS} restarts`,
    async () => {
      const deployment = await startDeployment();
      const load = sendContinuously(deployment, (client) => deployment.apis[client % 2]?.url as string);
      for (let restart = 0; restart < RESTARTS; restart += 1) {
        // Under load before each stop: sends are being stored and pushed when the sessions end.
        await load.progress(20);
        // `fast` ends every session with 57P01: connections checked out mid-transaction, idle in the
        // pool, and a worker's between two statements.
        await deployment.postgres.stop('fast');
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await deployment.postgres.start();
      }
      await load.progress(20);
      await load.stop();

      expectStillRunning([...deployment.apis, ...deployment.workers]);
      expectOnlyRetriedResponses(load);
      // The SDK's retries (503 with Retry-After: 5) outlast a 3 s restart: no call was given up.
      expect(load.events.filter((event) => event.kind === 'gave_up')).toEqual([]);
      expect(load.events.some((event) => event.kind === 'retry')).toBe(true);
      await expectEveryAcceptedSendDelivered(deployment, load);
    },
    60_000 + RESTARTS * 20_000,
  );
});
