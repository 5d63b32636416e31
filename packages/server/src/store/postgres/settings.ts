import { TurnBatcher } from '../../kernel/turn-batcher.js';
import type { Dialect } from '../sql/plan.js';
import { pauseOf, settingsTable } from '../sql/settings.js';
import type { Pause, SettingsPart } from '../store.js';

export function postgresSettings(d: Dialect): SettingsPart {
  const table = settingsTable(d);
  // Read on every send, from the database (any process may pause sends): the sends of one turn
  // of the event loop share one read, made after all of them arrived.
  const pause = new TurnBatcher<'pause', Pause>(
    async (keys) => {
      const current = pauseOf(await table.getSetting('pause'));
      return keys.map(() => current);
    },
    { maxInFlight: Number.POSITIVE_INFINITY },
  );
  return {
    ...table,
    getPause: () => pause.add('pause'),
    setPause: (next) => table.setSetting('pause', JSON.stringify(next)),
  };
}
