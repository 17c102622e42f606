import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CliError } from './errors.js';
import { readManifests } from './manifests.js';

describe('readManifests', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-cli-manifests-'));
    mkdirSync(join(dir, 'deploy'));
    writeFileSync(
      join(dir, 'deploy', 'a.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c, namespace: team}\n',
    );
    writeFileSync(
      join(dir, 'deploy', 'b.json'),
      '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}',
    );
    writeFileSync(join(dir, 'deploy', 'notes.txt'), 'not a manifest');
    writeFileSync(join(dir, 'bad.yaml'), 'kind: ConfigMap\n');
    writeFileSync(join(dir, 'list.yaml'), 'apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n');
    writeFileSync(join(dir, 'broken.yaml'), 'a: [\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads files and folders, as kubectl apply -f does, with Lists expanded and origins', () => {
    expect(readManifests(['deploy'], dir).map((m) => `${m.origin} ${m.object.kind}`)).toEqual([
      'deploy/a.yaml#1 Namespace',
      'deploy/a.yaml#3.items[0] ConfigMap',
      'deploy/b.json#1 Secret',
    ]);
  });

  it('refuses what is not a Kubernetes object, naming the document', () => {
    expect(() => readManifests(['bad.yaml'], dir)).toThrow(
      'manifest bad.yaml#1 is not a Kubernetes object: it needs apiVersion, kind and metadata.name',
    );
    expect(() => readManifests(['list.yaml'], dir)).toThrow(
      /manifest list\.yaml#1\.items\[0\] is not a Kubernetes object/,
    );
    expect(() => readManifests(['broken.yaml'], dir)).toThrow(/manifest broken\.yaml#1 is not valid YAML: /);
  });

  it('names a missing file with its full path', () => {
    let error: unknown;
    try {
      readManifests(['absent.yaml'], dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(`cannot read manifest ${join(dir, 'absent.yaml')}: ENOENT`);
  });
});
