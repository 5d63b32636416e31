#!/usr/bin/env node
import { requireNodeFloor } from './node-floor.js';

process.title = 'foxbell-apns-sim';
requireNodeFloor('foxbell-apns-sim');
await import('../dist/apns-sim.js');
