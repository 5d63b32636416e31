import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  NOT_SURFACE,
  PUBLIC_ENTRIES,
  pendingChangesets,
  publicSurface,
  recordedSurface,
  unannounced,
} from '../scripts/surface.js';

const surface = publicSurface();
const docs = readFileSync(new URL('../../../docs/sdk.md', import.meta.url), 'utf8');

/** docs/sdk.md's list: `{ entry: names }` from the bullets of "The public surface". */
function listedSurface(): Record<string, string[]> {
  const section = docs.slice(docs.indexOf('## The public surface'));
  const listed: Record<string, string[]> = {};
  for (const bullet of section.split('\n- ').slice(1)) {
    const [entry, ...names] = [...bullet.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
    if (entry) listed[entry] = names;
  }
  return listed;
}

describe("the SDK's public surface", () => {
  it('is every export of the package but the server-only entry, and nothing else', () => {
    const exports = Object.keys(
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).exports,
    );
    const entries = Object.keys(PUBLIC_ENTRIES).map((entry) => entry.replace('@foxbell/sdk', '.'));
    expect(exports.sort()).toEqual([...entries, ...NOT_SURFACE].sort());
  });

  it('is listed name by name in docs/sdk.md', () => {
    expect(listedSurface()).toEqual(surface);
    for (const [entry, names] of Object.entries(surface)) {
      expect(docs).toContain(`- \`${entry}\` (${names.length}):`);
    }
  });

  it('changes only with a changeset that names each name added or removed', () => {
    expect(unannounced(surface, recordedSurface(), pendingChangesets())).toEqual([]);
  });

  it('holds the server-only share apart: no name is both', async () => {
    const serverShare = Object.keys(await import('../src/contract/server-contract.js'));
    const contract = new Set(surface['@foxbell/sdk/contract']);
    expect(serverShare.length).toBeGreaterThan(20);
    expect(serverShare.filter((name) => contract.has(name))).toEqual([]);
  });
});

describe('the changeset rule', () => {
  const recorded = { '@foxbell/sdk': ['Foxbell', 'Old'] };
  const now = { '@foxbell/sdk': ['Foxbell', 'Fresh'] };
  const changeset = (kind: string, text: string) => `---\n"@foxbell/sdk": ${kind}\n---\n\n${text}\n`;

  it('names each addition and removal no changeset announces', () => {
    expect(unannounced(now, recorded, [])).toEqual([
      { entry: '@foxbell/sdk', name: 'Fresh', change: 'added' },
      { entry: '@foxbell/sdk', name: 'Old', change: 'removed' },
    ]);
    expect(unannounced(now, recorded, [changeset('minor', 'Adds `Fresh`.')])).toEqual([
      { entry: '@foxbell/sdk', name: 'Old', change: 'removed' },
    ]);
    expect(unannounced(now, recorded, [changeset('major', 'Adds `Fresh`, removes `Old`.')])).toEqual([]);
  });

  it('takes no patch, and no changeset of another package, as an announcement', () => {
    const other = '---\n"@foxbell/cli": minor\n---\n\nAdds `Fresh`, removes `Old`.\n';
    expect(
      unannounced(now, recorded, [changeset('patch', 'Adds `Fresh`, removes `Old`.'), other]),
    ).toHaveLength(2);
  });
});
