import type { Pause, SettingsPart } from '../store.js';
import { all, type Dialect, get } from './plan.js';

/** Named values the server keeps (its key pairs, the pause); each database reads the pause its own way. */
export function settingsTable(d: Dialect): Pick<SettingsPart, 'getSetting' | 'setSetting' | 'settingOnce'> {
  return {
    async getSetting(name) {
      return (await d.read(get('SELECT value FROM settings WHERE name = $1', name)))?.value as
        | string
        | undefined;
    },
    async setSetting(name, value) {
      await d.write(() =>
        all(
          'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
          name,
          value,
        ),
      );
    },
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
  };
}

/** The pause as the `pause` setting holds it. */
export const pauseOf = (value: string | undefined): Pause =>
  value ? (JSON.parse(value) as Pause) : { paused: false, retryAfterSeconds: 0 };
