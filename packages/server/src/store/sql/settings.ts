import { TurnBatcher } from '../../kernel/turn-batcher.js';
import type { Pause, SettingsPart } from '../store.js';
import { all, type Dialect, get } from './plan.js';

/**
 * Named values the server keeps (its key pairs, the pause). The pause is read on every send:
 * where one process alone writes it (`soleWriter`: SQLite's one `api` process) that process keeps
 * a copy; where any process may pause sends (PostgreSQL) it is read from the database, the sends
 * of one turn of the event loop sharing one read made after all of them arrived.
 */
export function settings(d: Dialect, soleWriter: boolean): SettingsPart {
  const getSetting = async (name: string) =>
    (await d.read(get('SELECT value FROM settings WHERE name = $1', name)))?.value as string | undefined;
  const setSetting = async (name: string, value: string) => {
    await d.write(() =>
      all(
        'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        name,
        value,
      ),
    );
  };
  const reads = new TurnBatcher<'pause', Pause>(
    async (keys) => {
      const current = pauseOf(await getSetting('pause'));
      return keys.map(() => current);
    },
    { maxInFlight: Number.POSITIVE_INFINITY },
  );
  let kept: Pause | undefined;
  return {
    getSetting,
    setSetting,
    async settingOnce(name, value) {
      return d.write(function* () {
        yield* all(
          'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
          name,
          value,
        );
        return (yield* get('SELECT value FROM settings WHERE name = $1', name))?.value as string;
      });
    },
    async getPause() {
      if (!soleWriter) return reads.add('pause');
      kept ??= pauseOf(await getSetting('pause'));
      return kept;
    },
    async setPause(next) {
      await setSetting('pause', JSON.stringify(next));
      if (soleWriter) kept = next;
    },
  };
}

/** The pause as the `pause` setting holds it. */
const pauseOf = (value: string | undefined): Pause =>
  value ? (JSON.parse(value) as Pause) : { paused: false, retryAfterSeconds: 0 };
