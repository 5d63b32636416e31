// The server keeps its data in Node's own node:sqlite, which needs the Node.js that `engines` in
// package.json names. On an older one the first import of the server would fail while linking,
// with ERR_UNKNOWN_BUILTIN_MODULE, which says nothing of the cause: so each command checks first
// and imports the server only after.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const floor = Number(/^>=(\d+)$/.exec(engines.node)?.[1]);

/** Exits with a clear message when this Node.js is older than the package's floor. */
export function requireNodeFloor(command) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= floor) return;
  process.stderr.write(
    `${command} needs Node.js ${floor} or newer; this is Node.js ${process.versions.node}.\n` +
      `Install a current one (for example \`npm i -g --prefix ~/.node node\`, then put ~/.node/bin first on PATH).\n`,
  );
  process.exit(1);
}
