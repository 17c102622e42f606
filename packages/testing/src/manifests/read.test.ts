import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ManifestReadError, readManifestDocuments } from './read.js';

describe('readManifestDocuments', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-manifests-'));
    mkdirSync(join(dir, 'd'));
    mkdirSync(join(dir, 'd', 'nested.yaml'));
    writeFileSync(
      join(dir, 'd', 'b.yml'),
      'kind: B\n---\nkind: ConfigMapList\nitems: [{kind: C}, {kind: D}]\n',
    );
    writeFileSync(join(dir, 'd', 'a.json'), '{"kind":"A"}');
    writeFileSync(join(dir, 'd', 'z.txt'), 'kind: Z\n');
    writeFileSync(join(dir, 'scalar.yaml'), 'just text\n');
    writeFileSync(join(dir, 'broken.yaml'), 'a: [\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a folder's manifests in name order, not recursively, with Lists expanded", () => {
    expect(readManifestDocuments(['d'], dir).map((d) => `${d.origin} ${String(d.object['kind'])}`)).toEqual([
      'd/a.json#1 A',
      'd/b.yml#1 B',
      'd/b.yml#2.items[0] C',
      'd/b.yml#2.items[1] D',
    ]);
  });

  it.each([
    ['absent.yaml', 'not-found', undefined],
    ['scalar.yaml', 'not-an-object', 'scalar.yaml#1'],
    ['broken.yaml', 'invalid-yaml', 'broken.yaml#1'],
  ])('%s fails as %s', (path, failure, origin) => {
    let error: unknown;
    try {
      readManifestDocuments([path], dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ManifestReadError);
    expect(error).toMatchObject({ failure, path, origin });
  });
});
