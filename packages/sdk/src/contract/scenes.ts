import * as z from 'zod/mini';
import type { FIELD_DEFAULTS } from './values.js';

/** A scene id as the send field `scene` must spell it. */
export const SCENE_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
/**
 * `FIELD_DEFAULTS.scene`, written out (its type makes it equal): read from FIELD_DEFAULTS, it kept
 * all of that object in an app's bundle of the SDK, which needs only this one default.
 */
export const DEFAULT_SCENE: typeof FIELD_DEFAULTS.scene = 'notice';

const integer = (min: number, max: number, fallback: number) =>
  z._default(z.optional(z.int().check(z.minimum(min), z.maximum(max))), fallback);

const choice = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z._default(z.optional(z.enum(values)), fallback);

/**
 * The V1 catalog. Each version's parameters are a strict zod object: unknown parameters are
 * rejected, every parameter is optional and its default is part of the schema (and so of the
 * JSON Schema the catalog endpoint publishes).
 */
export const SCENES = {
  notice: { name: 'Notice', currentVersion: 1, versions: { 1: z.strictObject({}) } },
  rocket: {
    name: 'Rocket',
    currentVersion: 1,
    versions: {
      1: z.strictObject({
        color: choice(['red', 'blue', 'green', 'white'], 'white'),
        countdown: integer(0, 10, 3),
      }),
    },
  },
  fireworks: {
    name: 'Fireworks',
    currentVersion: 1,
    versions: { 1: z.strictObject({ bursts: integer(1, 10, 3) }) },
  },
  garage: {
    name: 'Garage',
    currentVersion: 1,
    versions: { 1: z.strictObject({ doorState: choice(['open', 'closed', 'opening', 'closing'], 'open') }) },
  },
  campfire: { name: 'Campfire', currentVersion: 1, versions: { 1: z.strictObject({}) } },
} as const satisfies Record<string, SceneDefinition>;

export interface SceneDefinition {
  /** Shown as the title when a notification has none. */
  name: string;
  currentVersion: number;
  versions: Record<number, z.ZodMiniObject>;
}

export type SceneId = keyof typeof SCENES;

export interface SceneVersion {
  scene: string;
  name: string;
  version: number;
  params: z.ZodMiniObject;
}

/** The scene version a send plays: the pinned one, else the scene's current one. */
export function findSceneVersion(scene: string, version?: number): SceneVersion | undefined {
  if (!Object.hasOwn(SCENES, scene)) return undefined;
  const definition: SceneDefinition = SCENES[scene as SceneId];
  const chosen = version ?? definition.currentVersion;
  const params = Object.hasOwn(definition.versions, chosen) ? definition.versions[chosen] : undefined;
  return params && { scene, name: definition.name, version: chosen, params };
}

export function isKnownScene(scene: string): boolean {
  return Object.hasOwn(SCENES, scene);
}

/** One entry of `GET /v1/scenes`. */
export interface CatalogScene {
  id: string;
  name: string;
  current_version: number;
  versions: { version: number; params: Record<string, unknown> }[];
}

/**
 * The catalog as `GET /v1/scenes` returns it, with each version's parameters as JSON Schema.
 * A function, not a constant, so that the SDK's bundle does not carry the JSON Schema generator.
 */
export function sceneCatalog(): { scenes: CatalogScene[] } {
  return {
    scenes: Object.entries(SCENES).map(([id, definition]: [string, SceneDefinition]) => ({
      id,
      name: definition.name,
      current_version: definition.currentVersion,
      versions: Object.entries(definition.versions).map(([version, params]) => ({
        version: Number(version),
        params: z.toJSONSchema(params, { io: 'input' }) as Record<string, unknown>,
      })),
    })),
  };
}
