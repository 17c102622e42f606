import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { importCycles } from './import-graph.mjs';

describe('import cycles', () => {
  it('finds a cycle made of type-only imports (as manager.ts ↔ rbac.ts was)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-import-graph-'));
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
  // layer of @rxkube/kube imports a module that imports it back (issue 14).
  it.each(['packages/kube/src', 'packages/cli/src'])('finds none in %s', (dir) => {
    expect(importCycles(join(import.meta.dirname, '../..', dir))).toEqual([]);
  });
});
