#!/usr/bin/env node
import { requireNodeFloor } from './node-floor.js';

requireNodeFloor('foxbell-server');
await import('../dist/server.js');
