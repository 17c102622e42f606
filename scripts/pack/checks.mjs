// What the pack test checks in an unpacked tarball (`package/` as npm unpacks it), beyond publint
// and arethetypeswrong: each function returns a list of problems, empty when the package is right.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

import ts from 'typescript';

/** Every file under `dir`, as paths relative to it with `/` separators. */
export function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Every string target of an `exports` map, with the condition path leading to it. */
function exportTargets(exports, path = []) {
  if (typeof exports === 'string') return [{ path, target: exports }];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.entries(exports).flatMap(([k, v]) => exportTargets(v, [...path, k]));
}

/** Files that must not ship: tests, test helpers, build info. */
export function unwantedFiles(files) {
  return files
    .filter((f) => /(^|\/)[^/]*\.test\.[^/]*$|(^|\/)__tests__\/|\.tsbuildinfo$/.test(f))
    .map((f) => `ships ${f} (tests and build info stay out of the package: see "files")`);
}

/** Source maps and declaration maps whose `sources` name files the package does not ship. */
export function brokenMaps(dir, files) {
  const problems = [];
  for (const f of files.filter((x) => x.endsWith('.map'))) {
    const map = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    for (const source of map.sources ?? []) {
      const target = resolve(dir, dirname(f), map.sourceRoot ?? '', source);
      if (!existsSync(target))
        problems.push(`${f} points at ${relative(dir, target)}, which is not in the package`);
    }
  }
  return problems;
}

/**
 * package.json fields a user and the registry rely on; `license` is the repository's LICENSE text,
 * which each package ships a copy of (npm packs a LICENSE from the package folder only).
 */
export function manifestProblems(dir, pkg, packageDir, license) {
  const problems = [];
  const need = (ok, what) => ok || problems.push(what);
  need(pkg.type === 'module', 'type must be "module" (ESM only)');
  need(
    typeof pkg.description === 'string' && pkg.description.length > 20,
    'description missing or too short',
  );
  need(pkg.license === 'Apache-2.0', `license must be Apache-2.0, is ${pkg.license}`);
  need(existsSync(join(dir, 'LICENSE')), 'LICENSE file missing from the package');
  need(
    !existsSync(join(dir, 'LICENSE')) || readFileSync(join(dir, 'LICENSE'), 'utf8') === license,
    `LICENSE differs from the repository's: cp LICENSE ${packageDir}/LICENSE`,
  );
  need(/^>=\d/.test(pkg.engines?.node ?? ''), 'engines.node missing');
  need(pkg.repository?.directory === packageDir, `repository.directory must be ${packageDir}`);
  need(typeof pkg.repository?.url === 'string', 'repository.url missing');
  need(pkg.main === undefined && pkg.module === undefined, 'main/module fields: use exports only');
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(pkg[field] ?? {})) {
      need(!String(range).startsWith('workspace:'), `${field}.${name} is still ${range}`);
    }
  }
  need(pkg.exports && typeof pkg.exports === 'object', 'exports map missing');
  for (const [subpath, conditions] of Object.entries(pkg.exports ?? {})) {
    const keys = typeof conditions === 'object' && conditions !== null ? Object.keys(conditions) : [];
    need(keys.includes('types') && keys.includes('default'), `exports["${subpath}"] needs types and default`);
    need(!keys.includes('require'), `exports["${subpath}"] has a require condition (ESM only)`);
    need(
      keys.indexOf('types') < keys.indexOf('default'),
      `exports["${subpath}"]: types must come before default`,
    );
  }
  for (const { path, target } of exportTargets(pkg.exports)) {
    need(existsSync(join(dir, target)), `exports ${path.join(' → ')} → ${target} is not in the package`);
  }
  for (const [name, target] of Object.entries(pkg.bin ?? {})) {
    const file = join(dir, target);
    if (!existsSync(file)) {
      problems.push(`bin ${name} → ${target} is not in the package`);
      continue;
    }
    need(readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n'), `bin ${name} has no node shebang`);
    need((statSync(file).mode & 0o111) !== 0, `bin ${name} is not executable`);
  }
  return problems;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:'))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Bare imports in the built JavaScript and declarations that the package does not declare as a
 * dependency or peer dependency: they work in the workspace (or with a hoisting installer) and
 * fail for a user whose installer is strict.
 */
export function undeclaredImports(dir, pkg, files) {
  const declared = new Set([
    pkg.name,
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}),
  ]);
  const builtins = new Set(builtinModules);
  const problems = [];
  for (const f of files.filter((x) => /^(dist|bin)\/.*\.(js|d\.ts)$/.test(x))) {
    const info = ts.preProcessFile(readFileSync(join(dir, f), 'utf8'), true, true);
    for (const { fileName } of [...info.importedFiles, ...info.typeReferenceDirectives]) {
      const name = packageOf(fileName);
      if (name === undefined || builtins.has(name) || declared.has(name)) continue;
      // `/// <reference types="node" />` is satisfied by @types/node, which users of Node have.
      if (name === 'node') continue;
      problems.push(`${f} imports ${fileName}, but ${name} is not a dependency or peer dependency`);
    }
  }
  return problems;
}
