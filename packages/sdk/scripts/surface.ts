#!/usr/bin/env node
/**
 * The SDK's public surface: every name each public entry exports, values and types alike, read
 * from the sources with TypeScript's own checker (a name re-exported through several files counts
 * once, where an app imports it). `node scripts/surface.ts` prints it; `--write` records it in
 * surface.json as the surface of the release being versioned (the release workflow runs it right
 * after `changeset version`), which is what a pending change is compared with.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Each public entry and its source. `./server-contract` is published only because Foxbell's own
 * server imports it, and `./package.json` holds no code: neither is surface.
 */
export const PUBLIC_ENTRIES: Record<string, string> = {
  '@foxbell/sdk': 'src/index.ts',
  '@foxbell/sdk/contract': 'src/contract/index.ts',
  '@foxbell/sdk/contract/values': 'src/contract/values.ts',
  '@foxbell/sdk/device': 'src/device.ts',
  '@foxbell/sdk/testing': 'src/testing/index.ts',
};
export const NOT_SURFACE = ['./server-contract', './package.json'];

/** Each entry's names, sorted. */
export type Surface = Record<string, string[]>;

export function publicSurface(): Surface {
  const files = Object.values(PUBLIC_ENTRIES).map((file) => join(root, file));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const surface: Surface = {};
  for (const [entry, file] of Object.entries(PUBLIC_ENTRIES)) {
    const source = program.getSourceFile(join(root, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file} is not a module`);
    surface[entry] = checker
      .getExportsOfModule(module)
      .map((symbol) => symbol.name)
      .sort();
  }
  return surface;
}

export const RECORDED = join(root, 'surface.json');

/** The surface recorded at the last release. */
export function recordedSurface(): Surface {
  return JSON.parse(readFileSync(RECORDED, 'utf8'));
}

/** The pending changesets' texts (`.changeset/*.md` but its README). */
export function pendingChangesets(): string[] {
  const folder = join(root, '..', '..', '.changeset');
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => readFileSync(join(folder, name), 'utf8'));
}

/**
 * Each name added to or removed from the surface since the recorded release that no pending
 * changeset announces: one that makes a minor or major change of `@foxbell/sdk` and names it in
 * backticks. A patch cannot change what an app may import.
 */
export function unannounced(
  surface: Surface,
  recorded: Surface,
  changesets: string[],
): { entry: string; name: string; change: 'added' | 'removed' }[] {
  const announced = new Set(
    changesets
      .filter((text) => /^["']?@foxbell\/sdk["']?:\s*(minor|major)\s*$/m.test(text.split(/^---$/m)[1] ?? ''))
      .flatMap((text) => [...text.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((match) => match[1] as string)),
  );
  const changes: { entry: string; name: string; change: 'added' | 'removed' }[] = [];
  for (const entry of new Set([...Object.keys(surface), ...Object.keys(recorded)])) {
    const now = new Set(surface[entry] ?? []);
    const then = new Set(recorded[entry] ?? []);
    for (const name of now) if (!then.has(name)) changes.push({ entry, name, change: 'added' });
    for (const name of then) if (!now.has(name)) changes.push({ entry, name, change: 'removed' });
  }
  return changes.filter(({ name }) => !announced.has(name));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const surface = publicSurface();
  if (process.argv.includes('--write')) writeFileSync(RECORDED, `${JSON.stringify(surface, null, 2)}\n`);
  else process.stdout.write(`${JSON.stringify(surface, null, 2)}\n`);
}
