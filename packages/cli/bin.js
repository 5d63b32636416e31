#!/usr/bin/env node
import module from 'node:module';

// Node 22.1+ keeps compiled code between runs: a faster start for a command run many times.
module.enableCompileCache?.();
await import('./dist/main.js');
