/**
 * Values written as text (a query string, a form, a command line) read as the JSON types the
 * send fields and scene parameters take. The server's URL-token endpoint and the CLI read them
 * alike, so `param.countdown=3` and `--param countdown=3` send the same number.
 */

/** An integer when the text spells one (as JSON would), else the text unchanged for validation to judge. */
export function integerOrText(value: string): number | string {
  return /^-?[0-9]{1,15}$/.test(value) ? Number(value) : value;
}

/** A scene parameter read as the JSON Schema `type` of its schema; text that does not fit stays text. */
export function paramFromText(value: string, type: string | undefined): unknown {
  if (type === 'integer') return integerOrText(value);
  if (type === 'number' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The JSON Schema `type` of each parameter of one catalog version's `params` (`string` where none is given). */
export function paramTypesOf(params: Record<string, unknown>): Record<string, string> {
  const properties = (params.properties ?? {}) as Record<string, { type?: unknown }>;
  return Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => [
      name,
      typeof schema?.type === 'string' ? schema.type : 'string',
    ]),
  );
}
