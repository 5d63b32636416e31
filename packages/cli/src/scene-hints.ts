import type { Foxbell, SendFields } from '@foxbell/sdk';
import { DEFAULT_SCENE, findSceneVersion, LEVELS, sceneCatalog } from '@foxbell/sdk/contract';
import { type ParamSchema, paramValues } from './scene-params.js';

/**
 * A rejected scene, scene parameter or level, with what there is to choose from: the service's
 * scenes for an unknown scene (and the one a typo most likely meant), the played scene's
 * parameters for an unknown or out-of-range one, the level a typo meant. Any other error is
 * returned as it is.
 */
export async function withSceneChoices(
  error: unknown,
  fields: Partial<SendFields>,
  client: Pick<Foxbell, 'scenes'>,
): Promise<unknown> {
  const { code } = (error ?? {}) as { code?: unknown };
  if (code === 'invalid_scene') {
    // The service's own list (it may know scenes this copy does not), else this copy's.
    const served = await client.scenes().catch(() => undefined);
    const catalog = served && served.scenes.length > 0 ? served : sceneCatalog();
    const ids = catalog.scenes.map((scene) => scene.id);
    const near = closest(String(fields.scene ?? ''), ids);
    return hinted(
      error,
      `${near ? `Did you mean ${near}? ` : ''}Scenes: ${ids.join(', ')} (\`notify scenes\` shows each one's parameters)`,
    );
  }
  if (code === 'invalid_field' && (error as { field?: unknown }).field === 'level') {
    const near = closest(String(fields.level ?? ''), LEVELS);
    if (near) return hinted(error, `Did you mean ${near}? Levels: ${LEVELS.join(', ')}, or -2 to 2`);
  }
  if (code === 'invalid_scene_param') {
    const scene = typeof fields.scene === 'string' ? fields.scene : DEFAULT_SCENE;
    const played = findSceneVersion(
      scene,
      typeof fields.scene_version === 'number' ? fields.scene_version : undefined,
    );
    const entry = sceneCatalog().scenes.find((candidate) => candidate.id === scene);
    const params = entry?.versions.find((version) => version.version === played?.version)?.params;
    const properties = Object.entries((params?.properties ?? {}) as Record<string, ParamSchema>);
    return hinted(
      error,
      properties.length === 0
        ? `${scene} takes no parameters`
        : `${scene} takes ${properties.map(([name, schema]) => `--param ${name}=${paramValues(schema)}`).join(', ')}`,
    );
  }
  return error;
}

/** The error as it is (its class, code, field and request id), with what to do next beside it. */
function hinted(error: unknown, hint: string): unknown {
  return Object.assign(error as object, { hint });
}

/** The choice `given` is a typo of: at most two edits away (one for a short word), and nearest. */
export function closest(given: string, choices: readonly string[]): string | undefined {
  const word = given.toLowerCase();
  let best: { choice: string; distance: number } | undefined;
  for (const choice of choices) {
    const distance = editDistance(word, choice.toLowerCase());
    if (distance > (choice.length <= 4 ? 1 : 2) || distance === 0) continue;
    if (!best || distance < best.distance) best = { choice, distance };
  }
  return best?.choice;
}

/** Levenshtein's distance, with one row: short words, and a dependency would add to notify's start for 20 lines. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] as number;
}
