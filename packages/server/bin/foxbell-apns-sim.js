#!/usr/bin/env node
import '../dist/apns-sim.js';
