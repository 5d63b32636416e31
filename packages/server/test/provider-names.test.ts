import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { apns } from '../src/delivery/apns/entry.js';
import { describedProviders, PROVIDERS } from '../src/delivery/providers.js';
import { testRecorder } from './delivery/test-recorder/entry.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The product's providers and the test-only one (delivery/provider-registry.stores.test.ts). */
const REGISTRY = { ...PROVIDERS, testRecorder };

/**
 * Where a provider may be named outside its folder (src/delivery/<id>/): the registry, the
 * package's exports, the schema's migrations (a column's first name stays in the migration that
 * made it, and rows from before the `provider` column are read as those releases meant them), and,
 * for APNs alone, its simulator.
 */
function mayName(file: string, provider: string): boolean {
  return (
    file === 'delivery/providers.ts' ||
    file === 'index.ts' ||
    /^store\/(sqlite\/schema|postgres\/schema|sql\/migrations)\.ts$/.test(file) ||
    (provider === apns.id && file.startsWith('simulator/'))
  );
}

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(at);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, at)] : [];
  });
}

/**
 * The words of a file's code: its identifiers, strings, templates and regular expressions (an
 * import's path among them); not its comments, which may give a provider as an example.
 */
function wordsOf(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(path.join(SRC, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  const words: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) words.push(node.text);
    else if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateLiteralToken(node) ||
      ts.isRegularExpressionLiteral(node)
    ) {
      words.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return words;
}

/** Code spellings are one: `web-push`, `web_push`, `webPush` and `WEB_PUSH` are all `webpush`. */
const squashed = (text: string) => text.toLowerCase().replace(/[-_]/g, '');

/**
 * A provider's names, from the registry: its id, its name for people (`Web Push`), its
 * registration member (`push_token`) and what a device shows of it (`web_push`).
 */
async function namesOf() {
  const made = await describedProviders(REGISTRY);
  return made.map((provider) => ({
    id: provider.id,
    code: [provider.id, provider.registration.field, provider.registration.shownAs ?? provider.id].map(
      squashed,
    ),
    title: provider.title.toLowerCase(),
  }));
}

/** Where in `word` one of the names is (its code spelling, or its name for people), if anywhere. */
function matchIn(word: string, names: { code: string[]; title: string }): number | undefined {
  for (let at = 0; at < word.length; at += 1) {
    const rest = word.slice(at);
    if (
      names.code.some((name) => squashed(rest).startsWith(name)) ||
      rest.toLowerCase().startsWith(names.title)
    ) {
      return at;
    }
  }
  return undefined;
}

/** For each provider, the files outside its folder that name it, each with where (an excerpt). */
async function namingFiles(): Promise<Record<string, { file: string; where: string[] }[]>> {
  const files = sourceFiles().map((file) => ({ file, words: [...new Set(wordsOf(file))] }));
  return Object.fromEntries(
    (await namesOf()).map((names) => [
      names.id,
      files
        .filter(({ file }) => !file.startsWith(`delivery/${names.id}/`) && !mayName(file, names.id))
        .flatMap(({ file, words }) => {
          const where = words.flatMap((word) => {
            const at = matchIn(word, names);
            if (at === undefined) return [];
            return [word.slice(Math.max(0, at - 24), at + 32).replace(/\s+/g, ' ')];
          });
          return where.length === 0 ? [] : [{ file, where }];
        }),
    ]),
  );
}

describe('a push provider is named in its folder and the registry', () => {
  it('has a folder named by its id under src/delivery/, for every provider of the product', () => {
    for (const entry of Object.values(PROVIDERS))
      expect(existsSync(path.join(SRC, 'delivery', entry.id))).toBe(true);
  });

  it('is named by no other file of src/ but the exports, the migrations and the APNs simulator', async () => {
    const found = await namingFiles();
    const files = Object.fromEntries(
      Object.entries(found).map(([id, list]) => [id, list.map(({ file }) => file)]),
    );
    const allowed = Object.fromEntries(Object.keys(found).map((id) => [id, []]));
    // The message says where each file names its provider.
    expect(files, JSON.stringify(found, null, 2)).toEqual(allowed);
  });
});
