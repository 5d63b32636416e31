import { fstatSync } from 'node:fs';
import type { Foxbell, SendFields } from '@foxbell/sdk';
import {
  DEFAULT_SCENE,
  findSceneVersion,
  integerOrText,
  paramFromText,
  paramTypesOf,
  sceneCatalog,
} from '@foxbell/sdk/contract';
import { usageError } from './exit-codes.js';
import { FIELD_FLAGS, type SendArgs } from './flags.js';

/**
 * The send fields the flags give. Only flags that were given become fields: the service's
 * defaults stay the service's, and the request stays what the person typed.
 */
export async function fieldsFromFlags(
  args: SendArgs,
  client: Pick<Foxbell, 'scenes'> | undefined,
  /** The scene the command chose itself (`ci`, `run`), when the flags choose none. */
  chosen: Pick<SendFields, 'scene' | 'scene_version'> = {},
  /** What NOTIFY_<FLAG> and the profile set, below the flags. */
  defaults: Partial<Record<string, string>> = {},
): Promise<Partial<SendFields>> {
  const fields: Record<string, unknown> = {};
  for (const { field, flag, integer } of FIELD_FLAGS) {
    const value = single(args, flag) ?? defaults[flag];
    if (value !== undefined) fields[field] = integer ? integerOrText(value) : value;
  }
  const params = parseParams(args.param ?? []);
  if (params.size > 0) {
    const scene = fields.scene ?? chosen.scene;
    const types = await paramTypes(
      scene,
      fields.scene === undefined ? chosen.scene_version : fields.scene_version,
      client,
    );
    fields.scene_params = Object.fromEntries(
      [...params].map(([name, text]) => [name, paramFromText(text, types[name])]),
    );
  }
  return fields as Partial<SendFields>;
}

/** A flag given once. yargs makes a repeated flag an array; a send field has one value. */
function single(args: SendArgs, flag: string): string | undefined {
  const value = args[flag];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    const distinct = new Set(value.map(String));
    if (distinct.size > 1) throw usageError(`--${flag} is given twice with different values`);
    return String(value[0]);
  }
  return String(value);
}

function parseParams(pairs: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw usageError(`--param takes name=value, not ${JSON.stringify(pair)}`);
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    if (params.has(name) && params.get(name) !== value) {
      throw usageError(`--param ${name} is given twice with different values`);
    }
    params.set(name, value);
  }
  return params;
}

/**
 * The JSON Schema types of the played scene version's parameters: from the SDK's own catalog
 * for the scenes it knows, else from the service's catalog (a newer server may have more).
 * Unknown everywhere, parameters stay text and the service judges the scene.
 */
async function paramTypes(
  scene: unknown,
  version: unknown,
  client: Pick<Foxbell, 'scenes'> | undefined,
): Promise<Record<string, string>> {
  const id = typeof scene === 'string' ? scene : DEFAULT_SCENE;
  const pinned = typeof version === 'number' ? version : undefined;
  const known = findSceneVersion(id, pinned);
  const catalog = known ? sceneCatalog() : client ? await client.scenes() : undefined;
  const entry = catalog?.scenes.find((candidate) => candidate.id === id);
  const played = entry?.versions.find((candidate) => candidate.version === (pinned ?? entry.current_version));
  return played ? paramTypesOf(played.params) : {};
}

/** Text read from stdin is bounded before it is buffered: a message is at most 4,000 bytes. */
const MAX_STDIN_BYTES = 64 * 1024;

/** The message: the words given, or stdin for "-" (or when nothing is given and stdin is not a terminal). */
export async function messageFrom(
  words: readonly string[] | undefined,
  stdin: NodeJS.ReadStream,
): Promise<string | undefined> {
  const given = words ?? [];
  const fromStdin = given.length === 1 && given[0] === '-' ? true : given.length === 0 && isPiped(stdin);
  if (!fromStdin) return given.length > 0 ? given.join(' ') : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) {
      stdin.destroy();
      throw usageError(`The message on stdin is longer than ${MAX_STDIN_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  // Like `$(…)` in a shell: the newlines that end the text are not part of it.
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/(\r?\n)+$/, '');
  return text === '' && given.length === 0 ? undefined : text;
}

/**
 * Stdin is read without "-" only when something is piped or redirected into it: a CI runner's
 * stdin may be a terminal-less device that never ends, and reading it would hang the step.
 */
function isPiped(stdin: NodeJS.ReadStream): boolean {
  if (stdin.isTTY) return false;
  try {
    const stat = fstatSync((stdin as { fd?: number }).fd ?? 0);
    return stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return false;
  }
}
