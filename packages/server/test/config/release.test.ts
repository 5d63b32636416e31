import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import rootPackage from '../../../../package.json' with { type: 'json' };

const ROOT = new URL('../../../../', import.meta.url);
const read = async (file: string) => readFile(new URL(file, ROOT), 'utf8');

describe('the release', () => {
  it('publishes the three packages from main with npm provenance, after lint and the tests, from the packed tarballs', async () => {
    const workflow = parse(await read('.github/workflows/release.yml'));
    expect(workflow.on).toEqual({ push: { branches: ['main'] } });
    expect(workflow.permissions).toEqual({
      contents: 'write',
      'pull-requests': 'write',
      'id-token': 'write',
    });
    const steps = workflow.jobs.release.steps as {
      uses?: string;
      run?: string;
      with?: Record<string, string>;
      env?: Record<string, string>;
    }[];
    const runs = steps.flatMap((step) => (step.run ? [step.run] : []));
    expect(runs).toEqual(['pnpm install --frozen-lockfile', 'pnpm lint', 'pnpm test']);
    // The pnpm and Node .ci/run installs.
    const ci = await read('.ci/run');
    expect(ci).toContain(
      `pnpm_version=${steps.find((step) => step.uses?.startsWith('pnpm/'))?.with?.version}`,
    );
    expect(steps.find((step) => step.uses?.startsWith('actions/setup-node'))?.with).toMatchObject({
      'node-version': 26,
      'registry-url': 'https://registry.npmjs.org',
    });
    const publish = steps.find((step) => step.uses?.startsWith('changesets/action'));
    expect(publish?.with).toMatchObject({ version: 'pnpm version-packages', publish: 'pnpm release' });
    // Versioning records the SDK surface it releases: the next change to it is held to that.
    expect(rootPackage.scripts['version-packages']).toBe(
      'changeset version && node packages/sdk/scripts/surface.ts --write',
    );
    expect(publish?.env).toMatchObject({ NPM_CONFIG_PROVENANCE: 'true' });
    // `pnpm release` packs what it publishes: built, and rejected when stale (each package's prepack).
    expect(rootPackage.scripts.release).toBe('pnpm pack:all && changeset publish');
    const config = JSON.parse(await read('.changeset/config.json'));
    expect(config).toMatchObject({
      fixed: [['@foxbell/sdk', '@foxbell/cli', '@foxbell/server']],
      access: 'public',
      privatePackages: { version: false, tag: false },
    });
  });

  it('reads every pending changeset: front matter of the three packages, each a patch, minor or major', async () => {
    const names = (await readdir(new URL('.changeset/', ROOT))).filter(
      (name) => name.endsWith('.md') && name !== 'README.md',
    );
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const text = await read(`.changeset/${name}`);
      // What changesets itself parses: `---`, one `"package": kind` a line, `---`, then the words.
      const match = /^---\n((?:"@foxbell\/(?:sdk|cli|server)": (?:patch|minor|major)\n)+)---\n\n\S/.exec(
        text,
      );
      expect(match?.[1], `.changeset/${name}`).toBeDefined();
    }
  });
});
