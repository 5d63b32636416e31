import type { Dialect } from '../sql/plan.js';
import { pauseOf, settingsTable } from '../sql/settings.js';
import type { Pause, SettingsPart } from '../store.js';

export function sqliteSettings(d: Dialect): SettingsPart {
  const table = settingsTable(d);
  // Read on every send; only the `api` store writes it, so it may keep a copy.
  let pause: Pause | undefined;
  return {
    ...table,
    async getPause() {
      pause ??= pauseOf(await table.getSetting('pause'));
      return pause;
    },
    async setPause(next) {
      await table.setSetting('pause', JSON.stringify(next));
      pause = next;
    },
  };
}
