#!/usr/bin/env node
import { requireNodeFloor } from './node-floor.js';

requireNodeFloor('foxbell-apns-sim');
await import('../dist/apns-sim.js');
