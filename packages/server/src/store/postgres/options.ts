/** Connections a process opens to PostgreSQL at most, unless `--database-pool` says otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/** What `--database-schema` accepts: a name that needs no quoting. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
