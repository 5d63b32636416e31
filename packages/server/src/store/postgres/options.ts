/** Connections a process opens to PostgreSQL at most, unless `--database-pool` says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/** What `--database-schema` accepts: a name that needs no quoting. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The URL and `options` a connection starts with: the schema's `search_path` merged with the
 * `--database` URL's own `?options=` (node-postgres takes the URL's `options` over any given beside
 * it, so the schema was lost and the tables made in the connection's default schema). The schema
 * comes last: it is `--database-schema`'s.
 */
export function connectionConfig(
  url: string,
  schema: string | undefined,
): { connectionString: string; options: string | undefined } {
  let connectionString = url;
  let fromUrl: string | null = null;
  try {
    const parsed = new URL(url);
    fromUrl = parsed.searchParams.get('options');
    if (fromUrl !== null) {
      parsed.searchParams.delete('options');
      connectionString = parsed.toString();
    }
  } catch {
    // Not a URL `new URL` reads: node-postgres reads it, or says why it cannot.
  }
  const parts = [fromUrl, schema === undefined ? null : `-c search_path=${schema}`].filter(
    (part): part is string => part !== null && part.trim() !== '',
  );
  return { connectionString, options: parts.length === 0 ? undefined : parts.join(' ') };
}
