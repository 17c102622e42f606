import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { importCycles, LAYERS, upwardImports } from './import-graph.mjs';

// A test leaves no file behind: every scratch folder made below is removed after its test.
const scratch = [];
const scratchDir = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('import cycles', () => {
  it('finds a cycle made of type-only imports (as manager.ts ↔ rbac.ts was)', () => {
    const dir = scratchDir('rxkube-import-graph-');
    mkdirSync(join(dir, 'manager'));
    writeFileSync(
      join(dir, 'manager/manager.ts'),
      "import type { Rule } from './rbac.js';\nexport class Manager { rules: Rule[] = []; }\n",
    );
    writeFileSync(
      join(dir, 'manager/rbac.ts'),
      "import type { Manager } from './manager.js';\nexport interface Rule { m?: Manager }\n",
    );
    writeFileSync(
      join(dir, 'manager/rbac.test.ts'),
      "import { Manager } from './manager.js';\nexport const m = new Manager();\n",
    );
    expect(importCycles(dir)).toEqual([['manager/manager.ts', 'manager/rbac.ts']]);
  });

  // A registration is plain data: manager.ts and rbac.ts both read manager/registration.ts, and no
  // layer of @rxkube/kube imports a module that imports it back (issue 14). core's applier and its
  // loop share applier-types.ts; testing's verb files name `EngineCore`, not the Engine class, and
  // its Table printers own the column and duration helpers that table.ts assembles (issue 20).
  it.each([
    'packages/kube/src',
    'packages/core/src',
    'packages/cel/src',
    'packages/wire/src',
    'packages/testing/src',
    'packages/cli/src',
    'packages/examples',
    'packages/soak/src',
  ])('finds none in %s', (dir) => {
    expect(importCycles(join(import.meta.dirname, '../..', dir))).toEqual([]);
  });
});

describe('layers', () => {
  const write = (dir, files) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  };

  it('finds an upward import, a sideways one within a rank, and a folder without a rank', () => {
    const dir = scratchDir('rxkube-layers-');
    write(dir, {
      'types.ts': 'export interface Obj { name: string }\n',
      'errors.ts': "import type { Obj } from './types.js';\nexport class E extends Error { o?: Obj }\n",
      // as transport/ importing RawWatchEvent from watcher/source.ts did
      'transport/http.ts':
        "import type { Raw } from '../watcher/source.js';\nexport const t = (r: Raw) => r;\n",
      'watcher/source.ts': "import type { Obj } from '../types.js';\nexport type Raw = Obj;\n",
      'sink/write.ts': "import { record } from '../events/record.js';\nexport const w = record;\n",
      'events/record.ts': 'export const record = 1;\n',
      'shiny/new.ts': "import { w } from '../sink/write.js';\nexport const n = w;\n",
      'watcher/source.test.ts': "import { w } from '../sink/write.js';\nexport const x = w;\n",
    });
    const levels = [['types.ts', 'errors.ts'], ['transport'], ['watcher'], ['sink', 'events']];
    expect(upwardImports(dir, levels)).toEqual([
      'shiny has no rank: add it to LAYERS in scripts/import-graph/import-graph.mjs',
      'sink/write.ts → events/record.ts (sink rank 3 → events rank 3)',
      'transport/http.ts → watcher/source.ts (transport rank 1 → watcher rank 2)',
    ]);
  });

  it.each(Object.entries(LAYERS))('%s: every folder has a rank and no import goes up', (dir, levels) => {
    expect(upwardImports(join(import.meta.dirname, '../..', dir), levels)).toEqual([]);
  });
});
