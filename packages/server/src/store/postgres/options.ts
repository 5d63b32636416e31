/** Connections a process opens to PostgreSQL at most, unless `--database-pool` says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/** What `--database-schema` accepts: a name that needs no quoting. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The URL and `options` a connection starts with: the server settings the store needs merged with
 * those of the `--database` URL's `?options=` (node-postgres takes the URL's `options` over any
 * given beside it, so either the URL's or the store's were lost). Plans are made for each
 * statement's values (`plan_cache_mode`): the store's statements are prepared once per connection,
 * and the plan PostgreSQL switches to after five runs, made for any value, is made from statistics
 * taken when the queue may have been empty, so it scanned every pending or leased destination once
 * the queue filled. The URL's options come after it, so an operator may say otherwise; the schema
 * comes last: it is `--database-schema`'s.
 */
export function connectionConfig(
  url: string,
  schema: string | undefined,
): { connectionString: string; options: string } {
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
  const options = [
    '-c plan_cache_mode=force_custom_plan',
    fromUrl,
    schema === undefined ? null : `-c search_path=${schema}`,
  ]
    .filter((part) => part !== null && part.trim() !== '')
    .join(' ');
  return { connectionString, options };
}
