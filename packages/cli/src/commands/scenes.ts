import type { CatalogScene } from '@foxbell/sdk';
import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';
import { type ParamSchema, paramValues } from '../scene-params.js';

export const run: Handler<GlobalArgs> = async (args, context) => {
  const { client } = await openClient(args, context);
  const catalog = await client.scenes();
  const scenes = Array.isArray(catalog.scenes) ? catalog.scenes : [];
  const others = catalog.unrecognized_scenes?.length ?? 0;
  context.out.result(catalog, () =>
    [
      ...scenes.map((scene) => describeScene(scene, Math.max(...scenes.map((each) => each.id.length)))),
      ...(others > 0
        ? [
            `${others} more ${others === 1 ? 'scene' : 'scenes'} in a layout this notify does not know: see --json`,
          ]
        : []),
    ].join('\n'),
  );
  return EXIT.ok;
};

/**
 * A scene, its current version and each parameter of that version with its values and default;
 * the scenes' names start in one column, `width` characters of id to their left.
 */
function describeScene(scene: CatalogScene, width: number): string {
  const current = scene.versions.find((version) => version.version === scene.current_version);
  const others = scene.versions.filter((version) => version !== current).map((version) => version.version);
  const versions = `v${scene.current_version}${others.length > 0 ? ` (also v${others.join(', v')})` : ''}`;
  const properties = (current?.params.properties ?? {}) as Record<string, ParamSchema>;
  const params = Object.entries(properties).map(
    ([name, schema]) => `  --param ${name}=${paramValues(schema)}`,
  );
  return [
    `${scene.id.padEnd(width)}  ${scene.name}, ${versions}`,
    ...(params.length > 0 ? params : ['  no parameters']),
  ].join('\n');
}
