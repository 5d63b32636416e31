/**
 * Which release wrote a database, by the number of migrations it ran: each store records it
 * (SQLite's `user_version`, PostgreSQL's `foxbell_migrations`), and a release only ever appends
 * migrations.
 */

/** The database was written by a newer foxbell-server: this one would misread what it wrote. */
export class NewerDatabaseError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the database is at schema version ${found}, written by a newer foxbell-server (this one knows up to ${known}); run that release or a later one: this one leaves the database as it is`,
    );
    this.name = 'NewerDatabaseError';
  }
}

/** The migrations a database at `applied` still needs, each with the version it brings it to. */
export function pendingMigrations(
  applied: number,
  migrations: readonly string[],
): { version: number; sql: string }[] {
  if (applied > migrations.length) throw new NewerDatabaseError(applied, migrations.length);
  return migrations.slice(applied).map((sql, index) => ({ version: applied + index + 1, sql }));
}
