import type { Pause, SettingsPart } from '../store.js';
import type { SqliteConnection } from './connection.js';

export function sqliteSettings(db: SqliteConnection): SettingsPart {
  // Read on every send; only the `api` store writes it, so it may keep a copy.
  let pause: Pause | undefined;
  const settings: SettingsPart = {
    async getPause() {
      if (!pause) {
        const value = await settings.getSetting('pause');
        pause = value ? (JSON.parse(value) as Pause) : { paused: false, retryAfterSeconds: 0 };
      }
      return pause;
    },
    async setPause(next) {
      await settings.setSetting('pause', JSON.stringify(next));
      pause = next;
    },
    async getSetting(name) {
      return db.get('SELECT value FROM settings WHERE name = ?', name)?.value as string | undefined;
    },
    async setSetting(name, value) {
      await db.write(() =>
        db.run(
          'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
          name,
          value,
        ),
      );
    },
    async settingOnce(name, value) {
      return db.write(() => {
        db.run('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', name, value);
        return db.get('SELECT value FROM settings WHERE name = ?', name)?.value as string;
      });
    },
  };
  return settings;
}
