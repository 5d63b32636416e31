import type { CatalogScene } from '@foxbell/sdk';
import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';
import { type ParamSchema, paramValues } from '../scene-params.js';

export const run: Handler<GlobalArgs> = async (args, context) => {
  const { client } = await openClient(args, context);
  const catalog = await client.scenes();
  context.out.result(catalog, () => catalog.scenes.map(describeScene).join('\n'));
  return EXIT.ok;
};

/** A scene, its current version and each parameter of that version with its values and default. */
function describeScene(scene: CatalogScene): string {
  const current = scene.versions.find((version) => version.version === scene.current_version);
  const others = scene.versions.filter((version) => version !== current).map((version) => version.version);
  const versions = `v${scene.current_version}${others.length > 0 ? ` (also v${others.join(', v')})` : ''}`;
  const properties = (current?.params.properties ?? {}) as Record<string, ParamSchema>;
  const params = Object.entries(properties).map(
    ([name, schema]) => `  --param ${name}=${paramValues(schema)}`,
  );
  return [
    `${scene.id}  ${scene.name}, ${versions}`,
    ...(params.length > 0 ? params : ['  no parameters']),
  ].join('\n');
}
