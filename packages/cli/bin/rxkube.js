#!/usr/bin/env node
// The `rxkube` command: see packages/cli/README.md.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
