import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../src/delivery/providers.js';

/**
 * Each push provider's folder, from the registry: delivery/<its id>. A provider's folder is a module of
 * its own, with the same rules for every provider.
 */
const PROVIDER_MODULES = Object.values(PROVIDERS).map((entry) => `delivery/${entry.id}`);

/**
 * The server's modules and the boundaries between them (docs/architecture.md draws them). A module is a
 * folder of src/ (each provider's folder and the two stores count as modules of their own, since they
 * have rules of their own); each may import only the modules listed here. Read from the source itself,
 * so an import that crosses an edge fails here the day it is written.
 */
const ALLOWED: Record<string, readonly string[]> = {
  // The shared kernel: clock, ids, secrets, limits, batching, errors as data. Imports nothing of the server.
  kernel: [],
  // The domain: entities and pure rules (admission, routing's decision, merges, links, token
  // liveness). Imports the kernel alone: no store, no framework, no I/O.
  model: ['kernel'],
  // The settings table and its reader: the defaults it names come from the modules that own them, and
  // each provider's group from the registry.
  config: ['kernel', 'model', 'store', 'store/postgres', 'delivery', 'delivery/providers.ts'],
  store: ['kernel', 'model', 'store/sql', 'store/sqlite', 'store/postgres'],
  // What both databases run alike, written once; each database runs it its own way.
  'store/sql': ['kernel', 'model', 'store'],
  'store/sqlite': ['kernel', 'model', 'store', 'store/sql'],
  'store/postgres': ['kernel', 'model', 'store', 'store/sql'],
  send: ['kernel', 'model'],
  metrics: ['kernel', 'model', 'store'],
  // The interface every transport implements, and the destination it is handed: the one boundary
  // of delivery/ its transports go through.
  'delivery/transport.ts': ['kernel', 'model'],
  // What a push provider is (its entry in the registry, its registration, settings, routes and
  // transport): the one module the API and the processes know providers by.
  'delivery/provider.ts': ['kernel', 'model', 'delivery/transport.ts'],
  // A provider is a module of its own: its protocol, keys, payload and registration, and the
  // kernel; nothing of the store, the worker, the API or another provider.
  ...Object.fromEntries(
    PROVIDER_MODULES.map((module) => [
      module,
      ['kernel', 'model', 'delivery/transport.ts', 'delivery/provider.ts'],
    ]),
  ),
  // The registry: the one file that names every provider.
  'delivery/providers.ts': ['kernel', 'delivery/provider.ts', ...PROVIDER_MODULES],
  delivery: ['kernel', 'model', 'store', 'metrics', 'delivery/transport.ts'],
  // The API never reaches into one database's code, nor into one provider's.
  http: ['kernel', 'model', 'send', 'store', 'metrics', 'delivery/provider.ts'],
  // Linking, switching and merging: link codes, sealed device keys, and their routes (the rules
  // they follow are the model's: model/links.ts, model/merge.ts).
  linking: ['kernel', 'model', 'store', 'http', 'delivery/provider.ts'],
  // The interface's document, from the routes' schemas and the providers' members.
  openapi: ['kernel', 'model', 'http', 'linking', 'delivery/provider.ts'],
  // The APNs simulator, and APNs's stand-in inside a process.
  simulator: ['kernel', 'model', 'config', 'delivery/provider.ts', 'delivery/apns'],
  dev: ['kernel', 'model', 'config', 'store', 'http', 'simulator'],
  'app.ts': [
    'kernel',
    'model',
    'http',
    'linking',
    'openapi',
    'dev',
    'metrics',
    'store',
    'delivery/provider.ts',
  ],
  'index.ts': [
    'kernel',
    'model',
    'http',
    'openapi',
    'store',
    'store/sqlite',
    'store/postgres',
    'delivery',
    'delivery/transport.ts',
    'delivery/provider.ts',
    'delivery/providers.ts',
    ...PROVIDER_MODULES,
    'app.ts',
  ],
  // The processes: they put everything together, and nothing imports them.
  main: [
    'kernel',
    'model',
    'config',
    'store',
    'store/sqlite',
    'store/postgres',
    'metrics',
    'delivery',
    'delivery/transport.ts',
    'delivery/provider.ts',
    'delivery/providers.ts',
    'http',
    'simulator',
    'dev',
    'app.ts',
  ],
};

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The module of a file of src/, by its path from src/. */
function moduleOf(file: string): string {
  const parts = file.split('/');
  if (parts.length === 1) return file;
  if (['delivery/transport.ts', 'delivery/provider.ts', 'delivery/providers.ts'].includes(file)) return file;
  const [top = '', second = ''] = parts;
  if ((top === 'delivery' || top === 'store') && parts.length > 2) return `${top}/${second}`;
  return top;
}

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(at);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, at)] : [];
  });
}

/** Every relative import of a file (static, re-exported or dynamic), as a source path from src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map(([, spec]) =>
    path.relative(SRC, path.resolve(SRC, path.dirname(file), spec as string)).replace(/\.js$/, '.ts'),
  );
}

describe("the server's modules", () => {
  const files = sourceFiles();

  it('holds only app.ts and index.ts at the root of src/', () => {
    expect(files.filter((file) => !file.includes('/')).sort()).toEqual(['app.ts', 'index.ts']);
  });

  it('puts every file in a module whose allowed imports are written down', () => {
    expect(files.map(moduleOf).filter((module) => !(module in ALLOWED))).toEqual([]);
  });

  it('crosses no edge: each module imports only the modules it may', () => {
    const crossings = files.flatMap((file) => {
      const from = moduleOf(file);
      return importsOf(file)
        .map(moduleOf)
        .filter((to) => to !== from && !ALLOWED[from]?.includes(to))
        .map((to) => `${file} -> ${to}`);
    });
    expect(crossings).toEqual([]);
  });

  it('keeps the kernel and the model free of frameworks: Node, the contract and DataLoader only', () => {
    const bare = (file: string) =>
      [...readFileSync(path.join(SRC, file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^.'][^']*)'/g)].map(
        ([, spec]) => spec as string,
      );
    const allowed = (spec: string) =>
      spec.startsWith('node:') ||
      [
        '@foxbell/sdk/contract',
        '@foxbell/sdk/contract/values',
        '@foxbell/sdk/server-contract',
        'dataloader',
      ].includes(spec);
    const foreign = files
      .filter((file) => ['kernel', 'model'].includes(moduleOf(file)))
      .flatMap((file) =>
        bare(file)
          .filter((spec) => !allowed(spec))
          .map((spec) => `${file} -> ${spec}`),
      );
    expect(foreign).toEqual([]);
  });

  it('lets nothing import main/, and only main/ and dev/ import the simulator', () => {
    const into = (module: string) =>
      files.filter(
        (file) => moduleOf(file) !== module && importsOf(file).some((target) => moduleOf(target) === module),
      );
    expect(into('main')).toEqual([]);
    expect(
      into('simulator')
        .map(moduleOf)
        .filter((module) => module !== 'main' && module !== 'dev'),
    ).toEqual([]);
  });
});

describe("the packages' tests", () => {
  const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));
  const testFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(at);
      return /\.(ts|mjs|cjs|js)$/.test(entry.name) ? [at] : [];
    });

  it("reach no other package's files by a relative path: what they share is @foxbell/test-support", () => {
    const reaching = readdirSync(PACKAGES).flatMap((name) => {
      const test = path.join(PACKAGES, name, 'test');
      let files: string[];
      try {
        files = testFiles(test);
      } catch {
        return [];
      }
      return files.flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/'(\.{1,2}\/[^'\s]*)'/g)]
          .map(([, spec]) => path.relative(PACKAGES, path.resolve(path.dirname(file), spec as string)))
          // The packages' folder itself is the workspace, not another package.
          .filter((target) => target !== '' && !target.startsWith('..') && target.split(path.sep)[0] !== name)
          .map((target) => `${path.relative(PACKAGES, file)} -> ${target}`),
      );
    });
    expect(reaching).toEqual([]);
  });
});
