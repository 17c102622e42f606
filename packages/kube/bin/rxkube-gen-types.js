#!/usr/bin/env node
// The `rxkube-gen-types` command: TypeScript types from a CRD (docs/guides/crds.md, "Typed custom
// resources"). A launcher in the source tree, so that installing the workspace links the command
// before `dist/` is built.
import { main } from '../dist/crd/gen-types.js';

process.exitCode = await main(
  process.argv.slice(2),
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
);
