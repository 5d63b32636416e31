import pg from 'pg';

/**
 * The channel a send's commit is signalled on: one per schema, so that deployments sharing a
 * database in schemas of their own do not wake each other's workers. A channel is a PostgreSQL
 * name, at most 63 bytes (pg_notify refuses a longer one, and every send with it): a schema name
 * of up to 49 bytes is used as it is, a longer one (a schema name may have 63) by the first 40
 * hex digits of its SHA-256, so the channel is at most 63 bytes whatever the schema.
 */
export const QUEUE_CHANNEL_SQL = `'foxbell_queue_' || CASE
  WHEN octet_length(current_schema()) <= 49 THEN current_schema()
  ELSE left(encode(sha256(convert_to(current_schema(), 'UTF8')), 'hex'), 40)
END`;

/** How long to wait before making the listening connection again after it broke. */
const RECONNECT_MS = 1000;

/**
 * `watchQueue` on PostgreSQL: one connection of its own (a pooled one cannot hold LISTEN), made
 * again a second after it breaks (a restart of the database) for as long as the store is open.
 * After each (re)connection `onQueued` is called once, for the sends whose signal was missed.
 */
export function postgresQueueSignal(config: pg.ClientConfig) {
  return {
    async watchQueue(onQueued: () => void): Promise<{ close(): Promise<void> }> {
      let closed = false;
      let client: pg.Client | undefined;
      let retry: NodeJS.Timeout | undefined;
      const again = () => {
        if (closed || retry !== undefined) return;
        retry = setTimeout(() => {
          retry = undefined;
          void listen();
        }, RECONNECT_MS);
        retry.unref();
      };
      const listen = async () => {
        const connection = new pg.Client(config);
        // A broken connection reports here and then ends: it is made again, never thrown.
        connection.on('error', () => {});
        connection.on('end', () => {
          if (client === connection) client = undefined;
          again();
        });
        connection.on('notification', () => onQueued());
        try {
          await connection.connect();
          const [row] = (await connection.query(`SELECT ${QUEUE_CHANNEL_SQL} AS channel`)).rows;
          await connection.query(`LISTEN ${pg.escapeIdentifier(row.channel as string)}`);
          if (closed) {
            await connection.end();
            return;
          }
          client = connection;
          onQueued();
        } catch {
          await connection.end().catch(() => {});
          again();
        }
      };
      await listen();
      return {
        async close() {
          closed = true;
          clearTimeout(retry);
          await client?.end().catch(() => {});
        },
      };
    },
  };
}
