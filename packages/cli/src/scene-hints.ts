import type { Foxbell, SendFields } from '@foxbell/sdk';
import { DEFAULT_SCENE, findSceneVersion, sceneCatalog } from '@foxbell/sdk/contract';
import { type ParamSchema, paramValues } from './scene-params.js';

/**
 * A refused scene or scene parameter, with what there is to choose from: the service's scenes for
 * an unknown scene, the played scene's parameters for an unknown or out-of-range one. Any other
 * error is returned as it is.
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
    return hinted(error, `Scenes: ${ids.join(', ')} (\`notify scenes\` shows each one's parameters)`);
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
