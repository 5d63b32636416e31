/** A scene parameter as the catalog's JSON Schema gives it: what `notify` shows of it. */
export interface ParamSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

/** The values a parameter takes, for `--param name=…`: `red|blue (default white)`, `0..10 (default 3)`. */
export function paramValues(schema: ParamSchema): string {
  let values = schema.type ?? 'value';
  if (schema.enum) values = schema.enum.map(String).join('|');
  else if (schema.minimum !== undefined && schema.maximum !== undefined) {
    values = `${schema.minimum}..${schema.maximum}`;
  }
  return schema.default === undefined ? values : `${values} (default ${String(schema.default)})`;
}
