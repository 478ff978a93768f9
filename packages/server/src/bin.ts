#!/usr/bin/env node
/**
 * The package's command, `verified-updater-server`: the companion server's command line
 * (server/src/cli/main.ts) compiled to JavaScript and run by node itself, so a signal a harness
 * sends to the process it started reaches the server (docs/SERVER.md §Run it).
 */
import '../../../server/src/cli/main.js';
