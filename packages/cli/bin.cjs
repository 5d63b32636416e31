#!/usr/bin/env node
// CommonJS, and so is dist/main.cjs: Node's CommonJS loader starts `notify` faster than its ESM
// loader (docs/performance.md, cli-start).
const [flag, ...rest] = process.argv.slice(2);
if ((flag === '--version' || flag === '-v') && rest.length === 0) {
  // Scripts ask it to see what is installed: handled before the CLI and its parser load.
  process.stdout.write(`${require('./package.json').version}\n`);
} else {
  // The compile cache (Node 22.1+) keeps compiled code between runs; it covers what loads next.
  require('node:module').enableCompileCache?.();
  require('./dist/main.cjs');
}
