#!/usr/bin/env node
/**
 * `gen-types`: the command line of {@link crdToTypeScript}.
 *
 * ```sh
 * node node_modules/@rxkube/kube/dist/crd/gen-types.js crd.yaml [--version v1] [--import-from @rxkube/kube] > src/widget.ts
 * ```
 *
 * @module
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import type { CrdToTypeScriptOptions } from './crd-to-typescript.js';
import { crdToTypeScript } from './crd-to-typescript.js';
import type { CustomResourceDefinition } from './custom-resource-definition.js';
import { loadCrd } from './load-crd.js';
import { validateCrd } from './validate-crd.js';

const USAGE = 'usage: gen-types <crd.yaml> [--version <name>] [--import-from <module>] > types.ts';

/**
 * Runs the generator on `args` (without `node` and the script): writes the TypeScript to `out`,
 * problems to `err`, and resolves with the exit code (0 ok, 1 invalid CRD or file, 2 usage).
 *
 * ## Example
 * ```ts
 * const code = await main(['crd.yaml'], (s) => process.stdout.write(s), (s) => process.stderr.write(s));
 * ```
 */
export async function main(
  args: readonly string[],
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  let file: string | undefined;
  let options: CrdToTypeScriptOptions = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--version' || a === '--import-from') {
      const value = args[++i];
      if (value === undefined) {
        err(`${a} needs a value\n${USAGE}\n`);
        return 2;
      }
      options = a === '--version' ? { ...options, version: value } : { ...options, importFrom: value };
    } else if (a === '--help' || a === '-h') {
      out(`${USAGE}\n`);
      return 0;
    } else if (file === undefined && a !== undefined && !a.startsWith('--')) file = a;
    else {
      err(`unexpected argument ${JSON.stringify(a)}\n${USAGE}\n`);
      return 2;
    }
  }
  if (file === undefined) {
    err(`${USAGE}\n`);
    return 2;
  }
  try {
    const crd = await loadCrd(file.includes('\n') ? file : file.trim(), 'gen-types');
    const causes = validateCrd(crd);
    if (causes.length > 0) {
      err(
        `${file} is not a valid CustomResourceDefinition:\n${causes.map((c) => `  - ${c.field}: ${c.message}`).join('\n')}\n`,
      );
      return 1;
    }
    out(crdToTypeScript(crd as unknown as CustomResourceDefinition, options));
    return 0;
  } catch (e) {
    err(`${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(
    process.argv.slice(2),
    (s) => process.stdout.write(s),
    (s) => process.stderr.write(s),
  ).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`${String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
