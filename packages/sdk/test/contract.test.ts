import { describe, expect, it } from 'vitest';
import { LEVEL_PUSH_PRIORITY } from '../src/contract/fields.js';
import { findSceneVersion, levelOf, sceneCatalog, validateSend } from '../src/contract/index.js';

const strict = { unknownScenes: 'reject' } as const;

describe('validateSend as the server runs it', () => {
  it('applies every default to a bare message', () => {
    expect(validateSend({ message: 'hi' }, strict)).toEqual({
      ok: true,
      value: {
        message: 'hi',
        scene: 'notice',
        scene_version: 1,
        scene_params: {},
        bell_color: 'gold',
        level: 'active',
        sound: 'default',
        ttl: 86_400,
      },
    });
  });

  it('takes the message from an alias and keeps the optional fields given', () => {
    const result = validateSend(
      {
        text: 'hi',
        title: '',
        tag: 't',
        target: 'watch',
        scene: 'rocket',
        scene_version: 1,
        ignored: undefined,
      },
      strict,
    );
    expect(result).toMatchObject({
      ok: true,
      value: { message: 'hi', title: '', tag: 't', target: 'watch', scene: 'rocket', scene_version: 1 },
    });
  });

  it('rejects a well-formed scene outside the catalog with invalid_scene', () => {
    expect(validateSend({ message: 'hi', scene: 'volcano' }, strict)).toEqual({
      ok: false,
      error: { code: 'invalid_scene', field: 'scene', message: 'volcano is not in the scene catalog' },
    });
  });

  it('rejects a version the catalog does not list with invalid_scene', () => {
    expect(validateSend({ message: 'hi', scene: 'rocket', scene_version: 2 }, strict)).toMatchObject({
      ok: false,
      error: { code: 'invalid_scene', field: 'scene_version' },
    });
  });

  it('passes an unknown scene through when the SDK checks it (the server may know a newer catalog)', () => {
    expect(
      validateSend({ message: 'hi', scene: 'volcano', scene_params: { lava: 1 } }, { unknownScenes: 'pass' }),
    ).toMatchObject({
      ok: true,
      value: { scene: 'volcano', scene_params: { lava: 1 } },
    });
  });

  it('reports the first problem in a fixed order: unknown fields, then aliases, then the table order', () => {
    const errorOf = (input: Record<string, unknown>) => {
      const result = validateSend(input, strict);
      return result.ok ? undefined : result.error.field;
    };
    expect(errorOf({ message: 'a', body: 'b', nope: 1, ttl: 0 })).toBe('nope');
    expect(errorOf({ message: 'a', body: 'b', ttl: 0 })).toBe('message');
    expect(errorOf({ message: 'a', ttl: 0, title: 5 })).toBe('title');
  });

  it('names the field the caller used when an alias is invalid', () => {
    expect(validateSend({ text: '' }, strict)).toMatchObject({
      ok: false,
      error: { code: 'invalid_field', field: 'text' },
    });
  });
});

describe('levels', () => {
  it.each([
    ['passive', 'passive', 5],
    [-2, 'passive', 5],
    ['-1', 'passive', 5],
    ['active', 'active', 10],
    [0, 'active', 10],
    ['time-sensitive', 'time-sensitive', 10],
    [1, 'time-sensitive', 10],
    ['2', 'time-sensitive', 10],
  ] as const)('%j is %s at push priority %i', (input, level, priority) => {
    expect(levelOf(input)).toBe(level);
    expect(LEVEL_PUSH_PRIORITY[levelOf(input)]).toBe(priority);
  });
});

describe('the scene catalog', () => {
  it('publishes every V1 scene with a JSON Schema of its parameters and their defaults', () => {
    const catalog = sceneCatalog();
    expect(catalog.scenes.map((scene) => scene.id)).toEqual([
      'notice',
      'rocket',
      'fireworks',
      'garage',
      'campfire',
    ]);
    const rocket = catalog.scenes.find((scene) => scene.id === 'rocket');
    expect(rocket).toMatchObject({ name: 'Rocket', current_version: 1 });
    expect(rocket?.versions[0]?.params).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: {
        color: { type: 'string', enum: ['red', 'blue', 'green', 'white'], default: 'white' },
        countdown: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
      },
    });
    expect(catalog.scenes.find((scene) => scene.id === 'fireworks')?.versions[0]?.params).toMatchObject({
      properties: { bursts: { type: 'integer', minimum: 1, maximum: 10, default: 3 } },
    });
    expect(catalog.scenes.find((scene) => scene.id === 'garage')?.versions[0]?.params).toMatchObject({
      properties: { doorState: { enum: ['open', 'closed', 'opening', 'closing'], default: 'open' } },
    });
  });

  it('finds a pinned version, the current one by default, and nothing outside the catalog', () => {
    expect(findSceneVersion('garage')?.version).toBe(1);
    expect(findSceneVersion('garage', 1)?.name).toBe('Garage');
    expect(findSceneVersion('garage', 2)).toBeUndefined();
    expect(findSceneVersion('toString')).toBeUndefined();
  });
});
