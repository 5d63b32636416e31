#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { requireNodeFloor } from './node-floor.js';

// What `ps`, `pidof foxbell-server` and a certificate renewal hook's `kill -HUP` find it by.
process.title = 'foxbell-server';
if (process.argv[2] === '--version' || process.argv[2] === '-V') {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
  process.exit(0);
}
requireNodeFloor('foxbell-server');
await import('../dist/server.js');
