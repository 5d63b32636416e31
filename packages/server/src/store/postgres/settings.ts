import { TurnBatcher } from '../../kernel/turn-batcher.js';
import type { Pause, SettingsPart } from '../store.js';
import type { PostgresConnection } from './connection.js';

export function postgresSettings(db: PostgresConnection): SettingsPart {
  const getSetting = async (name: string) => {
    const [row] = await db.read('SELECT value FROM settings WHERE name = $1', [name]);
    return row?.value as string | undefined;
  };
  const setSetting = async (name: string, value: string) => {
    await db.transaction((session) =>
      session.rows(
        'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
        [name, value],
      ),
    );
  };
  // Read on every send, from the database (any process may pause sends): the sends of one turn
  // of the event loop share one read, made after all of them arrived.
  const pause = new TurnBatcher<'pause', Pause>(
    async (keys) => {
      const value = await getSetting('pause');
      const current: Pause = value ? (JSON.parse(value) as Pause) : { paused: false, retryAfterSeconds: 0 };
      return keys.map(() => current);
    },
    { maxInFlight: Number.POSITIVE_INFINITY },
  );
  return {
    getPause: () => pause.add('pause'),
    setPause: (next) => setSetting('pause', JSON.stringify(next)),
    getSetting,
    setSetting,
    async settingOnce(name, value) {
      return db.transaction(async (session) => {
        await session.rows(
          'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
          [name, value],
        );
        const row = await session.row('SELECT value FROM settings WHERE name = $1', [name]);
        return (row as { value: string }).value;
      });
    },
  };
}
