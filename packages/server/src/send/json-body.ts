import { type Checked, isPlainObject, MESSAGES, sameValue } from '@foxbell/sdk/server-contract';
import { evaluate, parse as parseJsonAst } from '@humanwhocodes/momoa';
import { decodeUtf8 } from './utf8.js';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Well above the send fields' own
 * limit (`scene_params` nests at most 2 inside the body's 1), so a too-deep `scene_params` is named
 * as that field's problem and only absurd nesting is rejected as a bad request.
 */
export const MAX_JSON_DEPTH = 16;

export type JsonObjectResult = Checked<Record<string, unknown>>;

const invalid = (message: string): JsonObjectResult => ({
  ok: false,
  error: { code: 'invalid_request', message },
});

/**
 * Parses a request body that must be one JSON object, strictly: valid UTF-8, at most
 * MAX_JSON_DEPTH deep, and no member given twice with different values (the spec's
 * `conflicting_field`; the same value twice is accepted).
 *
 * JSON.parse keeps the last of repeated members silently, so one pass over the text first
 * measures the depth (before any recursive parser can overflow its stack) and counts the members.
 * Only when the text has more members than the parsed objects have keys is there a repeat; then
 * momoa's syntax tree shows where. Most bodies pay for one scan and JSON.parse.
 */
export function parseJsonObject(bytes: Uint8Array): JsonObjectResult {
  const text = decodeUtf8(bytes);
  if (text === undefined) return invalid('the body is not valid UTF-8');
  const shape = scanJson(text);
  if (shape.depth > MAX_JSON_DEPTH) return invalid(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid(MESSAGES.notJson);
  }
  if (!isPlainObject(value)) return invalid(MESSAGES.notAnObject);
  if (shape.members !== countKeys(value)) {
    const conflict = findConflictingMember(text);
    if (conflict) {
      return {
        ok: false,
        error: {
          code: 'conflicting_field',
          field: conflict,
          message: `${conflict} is given twice with different values`,
        },
      };
    }
  }
  return { ok: true, value };
}

/** Nesting depth and number of object members of JSON text, reading strings only to skip them. */
function scanJson(text: string): { depth: number; members: number } {
  let depth = 0;
  let deepest = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth--;
    else if (char === 0x3a) members++;
  }
  return { depth: deepest, members };
}

function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = Array.isArray(value) ? 0 : Object.keys(value).length;
  for (const child of Object.values(value)) count += countKeys(child);
  return count;
}

type JsonNode = ReturnType<typeof parseJsonAst>['body'];

/**
 * The dotted path of the first member repeated with a different value, or undefined when every
 * repeat repeats its value. Paths name fields as errors do (`title`, `scene_params.color`).
 */
function findConflictingMember(text: string): string | undefined {
  const visit = (node: JsonNode, path: string): string | undefined => {
    if (node.type === 'Array') {
      for (const element of node.elements) {
        const found = visit(element.value, path);
        if (found) return found;
      }
    } else if (node.type === 'Object') {
      const seen = new Map<string, unknown>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        const memberPath = path === '' ? name : `${path}.${name}`;
        const value = evaluate(member.value);
        if (seen.has(name) && !sameValue(seen.get(name), value)) return memberPath;
        seen.set(name, value);
        const found = visit(member.value, memberPath);
        if (found) return found;
      }
    }
    return undefined;
  };
  return visit(parseJsonAst(text, { mode: 'json' }).body, '');
}
