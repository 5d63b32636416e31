import {
  DEFAULT_SCENE,
  findSceneVersion,
  integerOrText,
  paramFromText,
  paramTypesOf,
} from '@foxbell/sdk/contract';
import { type Checked, IGNORED_BODY_FIELDS, isPlainObject, sameValue } from '@foxbell/sdk/server-contract';
import { CATALOG } from '../kernel/catalog.js';
import type { Pairs } from './url-encoded.js';

/** Where a send field came from, highest precedence first (spec: URL-token endpoint, rule 2). */
export const SOURCE_ORDER = ['json', 'form', 'text', 'query', 'header'] as const;
export type SourceName = (typeof SOURCE_ORDER)[number];

/** Everything a request carried that may hold send fields. At most one of json, form and text. */
export interface SendSources {
  json?: Record<string, unknown>;
  form?: Pairs;
  /** A text/plain body, or a form body without `=`: the message, exactly as sent. */
  text?: string;
  query?: Pairs;
  headers?: { title?: string | undefined; level?: string | undefined };
}

const PARAM_PREFIX = 'param.';
/** Fields whose text from a query, form or header is read as an integer. */
const INTEGER_FIELDS = new Set(['scene_version', 'ttl']);
const IGNORED = new Set<string>(IGNORED_BODY_FIELDS);

interface Entry {
  source: SourceName;
  name: string;
  value: unknown;
}

/**
 * Merges the sources of one send into one set of fields, as the spec's URL-token endpoint reads
 * them: every source counts, a field given twice with different values (in two sources, or
 * repeated in one) is `conflicting_field`, and `param.<name>` values are read as the types of the
 * scene's parameter schema. Validation of the merged fields is validateSend's job.
 */
export function mergeSources(sources: SendSources): Checked<Record<string, unknown>> {
  const fieldEntries: Entry[] = [];
  const paramEntries: Entry[] = [];
  let paramsGiven = false;

  if (sources.json) {
    for (const [name, value] of Object.entries(sources.json)) {
      if (IGNORED.has(name)) continue;
      if (name === 'scene_params' && isPlainObject(value)) {
        paramsGiven = true;
        for (const [param, paramValue] of Object.entries(value)) {
          paramEntries.push({ source: 'json', name: param, value: paramValue });
        }
      } else fieldEntries.push({ source: 'json', name, value });
    }
  }
  for (const source of ['form', 'query'] as const) {
    for (const { name, value } of sources[source] ?? []) {
      if (name.startsWith(PARAM_PREFIX)) {
        const param = name.slice(PARAM_PREFIX.length);
        if (param === '') return invalidField(name, `${name} names no scene parameter`);
        paramsGiven = true;
        paramEntries.push({ source, name: param, value });
      } else if (name.startsWith('param[')) {
        return invalidField(name, `${name}: scene parameters are written param.<name>`);
      } else if (IGNORED.has(name)) {
        if (source === 'query') return invalidField(name, `${name} is ignored only in a JSON or form body`);
      } else fieldEntries.push({ source, name, value: fromText(name, value) });
    }
  }
  if (sources.text !== undefined) fieldEntries.push({ source: 'text', name: 'message', value: sources.text });
  const { title, level } = sources.headers ?? {};
  if (title !== undefined) fieldEntries.push({ source: 'header', name: 'title', value: title });
  if (level !== undefined) fieldEntries.push({ source: 'header', name: 'level', value: level });

  const merged = merge(fieldEntries, '');
  if (!merged.ok || !paramsGiven) return merged;
  const fields = merged.value;
  if (fields.scene_params !== undefined)
    return invalidField('scene_params', 'scene_params must be an object');
  const types = playedParamTypes(fields.scene, fields.scene_version);
  const typed = paramEntries.map((entry) =>
    entry.source === 'json'
      ? entry
      : {
          ...entry,
          // Own keys only: a parameter named `constructor` is not the object's constructor.
          value: paramFromText(
            entry.value as string,
            Object.hasOwn(types, entry.name) ? types[entry.name] : undefined,
          ),
        },
  );
  const params = merge(typed, 'scene_params.');
  if (!params.ok) return params;
  fields.scene_params = params.value;
  return merged;
}

function merge(entries: Entry[], fieldPrefix: string): Checked<Record<string, unknown>> {
  const order = (entry: Entry) => SOURCE_ORDER.indexOf(entry.source);
  // A JSON send, the common case, has one source: nothing to put in order.
  const oneSource = entries.every((entry) => entry.source === entries[0]?.source);
  const sorted = oneSource ? entries : [...entries].sort((a, b) => order(a) - order(b));
  const merged = new Map<string, Entry>();
  for (const entry of sorted) {
    const first = merged.get(entry.name);
    if (!first) merged.set(entry.name, entry);
    else if (!sameInput(first.value, entry.value)) {
      const field = fieldPrefix + entry.name;
      const where =
        first.source === entry.source
          ? `twice in the ${entry.source}`
          : `in the ${first.source} and the ${entry.source}`;
      return {
        ok: false,
        error: {
          code: 'conflicting_field',
          field,
          message: `${field} is given ${where} with different values`,
          details: { sources: [first.source, entry.source] },
        },
      };
    }
  }
  return { ok: true, value: Object.fromEntries([...merged].map(([name, entry]) => [name, entry.value])) };
}

/**
 * "The same value": equal after decoding, where text from a query, form or header equals the
 * number or boolean it spells (`ttl=60` and `"ttl": 60` are one value).
 */
function sameInput(a: unknown, b: unknown): boolean {
  if (sameValue(a, b)) return true;
  const scalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
  return scalar(a) && scalar(b) && String(a) === String(b);
}

function fromText(name: string, value: string): unknown {
  return INTEGER_FIELDS.has(name) ? integerOrText(value) : value;
}

/** The JSON Schema type of each parameter of each scene version, read once from the catalog. */
const PARAM_TYPES = new Map<string, Record<string, string>>(
  CATALOG.scenes.flatMap((scene) =>
    scene.versions.map(
      (version) => [`${scene.id}@${version.version}`, paramTypesOf(version.params)] as const,
    ),
  ),
);

/** The parameter types of the scene version a send plays (the contract decides which version that is). */
function playedParamTypes(scene: unknown, version: unknown): Record<string, string> {
  const played = findSceneVersion(
    typeof scene === 'string' ? scene : DEFAULT_SCENE,
    typeof version === 'number' ? version : undefined,
  );
  return (played && PARAM_TYPES.get(`${played.scene}@${played.version}`)) ?? {};
}

function invalidField(field: string, message: string): Checked<never> {
  return { ok: false, error: { code: 'invalid_field', field, message } };
}
