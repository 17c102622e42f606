// Markdown helpers for the docs checks: which files are docs, their fenced code blocks, their
// links and headings (with GitHub's anchors).
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Markdown files of the docs (paths relative to the repository root). */
export function docFiles() {
  const walk = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(path);
      return e.name.endsWith('.md') ? [path] : [];
    });
  const packages = readdirSync(join(root, 'packages')).filter((d) =>
    statSync(join(root, 'packages', d)).isDirectory(),
  );
  const examples = readdirSync(join(root, 'packages/examples')).filter((d) =>
    statSync(join(root, 'packages/examples', d)).isDirectory(),
  );
  return [
    'README.md',
    'CONTRIBUTING.md',
    ...walk('docs'),
    ...packages.map((d) => `packages/${d}/README.md`),
    'packages/examples/SHIPPING.md',
    ...examples.map((d) => `packages/examples/${d}/README.md`),
  ].filter((f) => {
    try {
      return statSync(join(root, f)).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * The fenced code blocks of a Markdown text: `{ lang, flags, file?, code, line }` (`line`: 1-based
 * line of the first code line).
 */
export function codeBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent, fence, lang, rest] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line);
    }
    const words = rest.trim().split(/\s+/).filter(Boolean);
    const file = words.find((w) => w.startsWith('file='))?.slice('file='.length);
    blocks.push({
      lang: lang.toLowerCase(),
      flags: words.filter((w) => !w.startsWith('file=')),
      ...(file !== undefined ? { file } : {}),
      code: body.length > 0 ? `${body.join('\n')}\n` : '',
      line: i + 2,
    });
    i = j;
  }
  return blocks;
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to dashes. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, (c) => (c === '_' ? '_' : ''))
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (outside code blocks), numbered as GitHub does for repeats. */
export function anchors(markdown) {
  const seen = new Map();
  const result = new Set();
  let fence;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** The relative links of a Markdown text (outside code blocks and code spans): `{ target, line }`. */
export function relativeLinks(markdown) {
  const links = [];
  let fence;
  markdown.split('\n').forEach((line, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ target, line: i + 1 });
    }
  });
  return links;
}

/**
 * The repository paths a Markdown text names in code spans (outside code blocks): `packages/…`,
 * `docs/…`, `scripts/…`, and `src/…`, `bench/…`, `bin/…` relative to `base` (skipped without one).
 * `{ path, line }`, `path` relative to the repository root; may hold a `*` glob.
 */
export function namedPaths(markdown, base) {
  const paths = [];
  let fence;
  markdown.split('\n').forEach((line, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1];
      else if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    for (const m of line.matchAll(/`((?:packages|docs|scripts|src|bench|bin)\/[\w./*-]+)`/g)) {
      const named = (m[1] ?? '').replace(/\.$/, '');
      if (/^(src|bench|bin)\//.test(named)) {
        if (base !== undefined) paths.push({ path: `${base}/${named}`, line: i + 1 });
      } else paths.push({ path: named, line: i + 1 });
    }
  });
  return paths;
}
