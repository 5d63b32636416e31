#!/usr/bin/env node
import '../dist/server.js';
