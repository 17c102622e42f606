// docs/promises.md names, for every promise, the test files and test names that prove it. Files
// move and tests get renamed; this keeps the page true: every file it names exists and every quoted
// test name is written in that file.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(join(root, 'docs/promises.md'), 'utf8');

/** The proof rows of the page's tables: `| \`file\` (note) | "name"; "name" … |`. */
const rows = page
  .split('\n')
  .map((line) => /^\| `([^`]+\.(?:ts|mjs))`[^|]*\| (.*) \|$/.exec(line))
  .filter((m) => m !== null)
  .map(([, file, tests]) => ({
    file,
    names: [...tests.matchAll(/"([^"]+)"/g)].map(([, name]) => name.replace(/ …$/, '')),
  }));

/** Test names as a reader sees them: the source's string escapes undone. */
const unescape = (source) => source.replace(/\\(['"`\\])/g, '$1');

describe('docs/promises.md', () => {
  it('names proof files for promises (the page parses)', () => {
    expect(rows.length).toBeGreaterThan(30);
  });

  it.each(rows.map((r) => [r.file, r]))('%s exists and holds every test name the page quotes', (_, row) => {
    const path = join(root, row.file);
    expect(existsSync(path), `${row.file} is named in docs/promises.md but does not exist`).toBe(true);
    const source = unescape(readFileSync(path, 'utf8'));
    const missing = row.names.filter((name) => !name.split(' … ').every((part) => source.includes(part)));
    expect(missing, `test names quoted in docs/promises.md but not found in ${row.file}`).toEqual([]);
  });

  it('has no TODO left', () => {
    expect(page).not.toMatch(/TODO/);
  });
});
