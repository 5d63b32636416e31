#!/usr/bin/env node
// CommonJS, and so is dist/main.cjs: Node's CommonJS loader starts `notify` faster than its ESM
// loader (docs/performance.md, cli-start). The compile cache (Node 22.1+) keeps compiled code
// between runs; it covers what loads after this line.
require('node:module').enableCompileCache?.();
require('./dist/main.cjs');
