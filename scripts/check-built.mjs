#!/usr/bin/env node
// A package's `prepack`: refuses to pack what was not built, or was built before its sources last
// changed (`pnpm pack` would ship a tarball with no dist/, or an old one). It builds nothing itself:
// a build during another process's run would pull dist/ from under it. `pnpm pack:all` at the
// root builds and packs the three packages.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = process.argv[2] ?? process.cwd();

/** The newest modification time under `dir`, or undefined when it does not exist. */
function newest(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return undefined;
  }
  let latest = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    latest = Math.max(latest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

const built = newest(path.join(root, 'dist'));
const name = path.basename(root);
if (built === undefined || built === 0) {
  process.stderr.write(
    `${name}: nothing built to pack (no dist/): run pnpm pack:all at the repository's root\n`,
  );
  process.exit(1);
}
const sources = newest(path.join(root, 'src')) ?? 0;
if (sources > built) {
  process.stderr.write(`${name}: dist/ is older than src/: run pnpm pack:all at the repository's root\n`);
  process.exit(1);
}
