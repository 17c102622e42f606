import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { exchange, loadTranscript } from '../replay/transcripts.js';
import { applyMergePatch } from './merge-patch.js';
import { applyStrategicMergePatch, PatchError, strategicListStrategy } from './strategic-merge.js';

const POD = { group: '', kind: 'Pod' };
const SERVICE = { group: '', kind: 'Service' };
const DEPLOYMENT = { group: 'apps', kind: 'Deployment' };
const CONFIGMAP = { group: '', kind: 'ConfigMap' };

const pod = {
  metadata: { name: 'p', finalizers: ['a'], labels: { app: 'x' } },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'app:1',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        volumeMounts: [{ name: 'v', mountPath: '/data' }],
        args: ['--x'],
      },
      { name: 'sidecar', image: 'side:1' },
    ],
    volumes: [{ name: 'v', emptyDir: {} }],
    tolerations: [{ key: 'a', operator: 'Exists' }],
  },
};

describe('applyStrategicMergePatch against the 10 transcript', () => {
  it('merges labels and data of a ConfigMap like the real server', () => {
    const before = exchange(loadTranscript('10'), 'JSON patch (application/json-patch+json): add and replace')
      .response?.body as Record<string, unknown>;
    const ex = exchange(
      loadTranscript('10'),
      'strategic merge patch (application/strategic-merge-patch+json)',
    );
    const after = applyStrategicMergePatch(before, ex.request.body, CONFIGMAP) as Record<string, unknown>;
    const expected = ex.response?.body as Record<string, { labels?: unknown }>;
    expect(after.data).toEqual(expected.data);
    expect((after.metadata as { labels: unknown }).labels).toEqual(expected.metadata?.labels);
  });
});

interface Container {
  name: string;
  image?: string;
  env?: unknown;
  ports?: unknown;
  volumeMounts?: unknown;
  args?: unknown;
}
interface Shape {
  metadata: { labels?: unknown; finalizers?: unknown };
  spec: {
    containers: Container[];
    tolerations?: unknown;
    ports?: unknown;
    strategy?: unknown;
    newMap?: unknown;
    template: { spec: { containers: Container[] } };
  };
}
const summary = (containers: Container[]): string[] => containers.map((c) => `${c.name}=${c.image ?? ''}`);

describe('applyStrategicMergePatch', () => {
  const apply = (patch: unknown, doc: unknown = pod, target = POD): Shape =>
    applyStrategicMergePatch(doc, patch, target) as Shape;

  it('merges containers by name, keeping the others and their order', () => {
    const out = apply({
      spec: {
        containers: [
          { name: 'sidecar', image: 'side:2' },
          { name: 'new', image: 'n:1' },
        ],
      },
    });
    expect(summary(out.spec.containers)).toEqual(['app=app:1', 'sidecar=side:2', 'new=n:1']);
  });

  it('puts items only the patch names before the server-only ones (patch.go normalizeElementOrder, as a real v1.24 server)', () => {
    expect(summary(apply({ spec: { containers: [{ name: 'new', image: 'n:1' }] } }).spec.containers)).toEqual(
      ['new=n:1', 'app=app:1', 'sidecar=side:1'],
    );
    const finalizers = (doc: string[], patch: string[]): unknown =>
      apply({ metadata: { finalizers: patch } }, { metadata: { finalizers: doc } }).metadata.finalizers;
    // recorded from kube-apiserver v1.24: [a, b] + [c] → [c, a, b]; then + [b, d] → [c, a, b, d]
    expect(finalizers(['a', 'b'], ['c'])).toEqual(['c', 'a', 'b']);
    expect(finalizers(['c', 'a', 'b'], ['b', 'd'])).toEqual(['c', 'a', 'b', 'd']);
  });

  it("reads merge keys from a kind's own schema (a kind added with startApiServer({ kinds }))", () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            rules: {
              type: 'array',
              'x-kubernetes-patch-strategy': 'merge',
              'x-kubernetes-patch-merge-key': 'id',
              items: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'string' } } },
            },
          },
        },
      },
    };
    const doc = { spec: { rules: [{ id: 'a', v: '1' }] } };
    const out = applyStrategicMergePatch(
      doc,
      { spec: { rules: [{ id: 'a', v: '2' }, { id: 'b' }] } },
      {
        group: 'snapshot.k8s.io',
        kind: 'Thing',
        schema,
      },
    );
    expect(out).toEqual({ spec: { rules: [{ id: 'a', v: '2' }, { id: 'b' }] } });
  });

  it('merges env by name and volumeMounts by mountPath inside a container', () => {
    const out = apply({
      spec: {
        containers: [
          {
            name: 'app',
            env: [
              { name: 'B', value: '20' },
              { name: 'C', value: '3' },
            ],
            volumeMounts: [{ mountPath: '/data', readOnly: true }],
          },
        ],
      },
    });
    expect(out.spec.containers[0]?.env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '20' },
      { name: 'C', value: '3' },
    ]);
    expect(out.spec.containers[0]?.volumeMounts).toEqual([{ name: 'v', mountPath: '/data', readOnly: true }]);
  });

  it('merges container ports by containerPort and Service ports by port', () => {
    const out = apply({
      spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }] }] },
    });
    expect(out.spec.containers[0]?.ports).toEqual([{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
    const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } };
    expect(apply({ spec: { ports: [{ port: 443, targetPort: 8443 }] } }, svc, SERVICE).spec.ports).toEqual([
      { port: 80, targetPort: 8080 },
      { port: 443, targetPort: 8443 },
    ]);
  });

  it('replaces lists without a strategy (args, tolerations)', () => {
    const out = apply({
      spec: { tolerations: [{ key: 'b', operator: 'Exists' }], containers: [{ name: 'app', args: ['--y'] }] },
    });
    expect(out.spec.tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
    expect(out.spec.containers[0]?.args).toEqual(['--y']);
  });

  it('treats metadata.finalizers as a merged set and honours $deleteFromPrimitiveList', () => {
    // merged items take the patch's order (strategicpatch/patch.go normalizeElementOrder; the real server answers [b, a])
    expect(apply({ metadata: { finalizers: ['b', 'a'] } }).metadata.finalizers).toEqual(['b', 'a']);
    expect(apply({ metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }).metadata.finalizers).toEqual(
      [],
    );
  });

  it('$patch: delete removes a list item by key, or a whole map', () => {
    const out = apply({ spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } });
    expect(out.spec.containers.map((c) => c.name)).toEqual(['app']);
    expect(apply({ metadata: { labels: { $patch: 'delete' } } }).metadata).toEqual({
      name: 'p',
      finalizers: ['a'],
    });
  });

  it('$patch: replace replaces a map or a whole list', () => {
    expect(apply({ metadata: { labels: { $patch: 'replace', other: 'y' } } }).metadata.labels).toEqual({
      other: 'y',
    });
    const out = apply({ spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'o:1' }] } });
    expect(out.spec.containers).toEqual([{ name: 'only', image: 'o:1' }]);
  });

  it('$retainKeys drops the keys not listed', () => {
    const doc = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } };
    const out = apply({ spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, doc, DEPLOYMENT);
    expect(out.spec.strategy).toEqual({ type: 'Recreate' });
    expect(() => apply({ spec: { strategy: { $retainKeys: ['type'], other: 1 } } }, doc, DEPLOYMENT)).toThrow(
      PatchError,
    );
  });

  it('$setElementOrder reorders the listed items', () => {
    const out = apply({
      spec: {
        '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
        containers: [{ name: 'app', image: 'app:2' }],
      },
    });
    expect(summary(out.spec.containers)).toEqual(['sidecar=side:1', 'app=app:2']);
  });

  it('null deletes a key; directives never reach the stored object', () => {
    const out = apply({
      metadata: { labels: { app: null } },
      spec: { newMap: { a: { $patch: 'merge', b: 1, c: null } } },
    });
    expect(out.metadata.labels).toEqual({});
    expect(out.spec.newMap).toEqual({ a: { b: 1 } });
  });

  it('merges pod templates nested in a Deployment', () => {
    const d = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', image: '1' },
              { name: 'b', image: '1' },
            ],
          },
        },
      },
    };
    const out = apply(
      { spec: { template: { spec: { containers: [{ name: 'b', image: '2' }] } } } },
      d,
      DEPLOYMENT,
    );
    expect(out.spec.template.spec.containers).toEqual([
      { name: 'a', image: '1' },
      { name: 'b', image: '2' },
    ]);
  });

  it('rejects an item without its merge key (invalid) and a non-object patch (malformed)', () => {
    expect(() => apply({ spec: { containers: [{ image: 'x' }] } })).toThrow(
      expect.objectContaining({ kind: 'invalid' }) as Error,
    );
    expect(() => apply(['x'])).toThrow(expect.objectContaining({ kind: 'malformed' }) as Error);
  });

  it('knows the list strategies of the common fields', () => {
    expect(strategicListStrategy(['metadata', 'ownerReferences'], POD)).toEqual({
      type: 'map',
      keys: ['uid'],
    });
    expect(strategicListStrategy(['status', 'conditions'], DEPLOYMENT)).toEqual({
      type: 'map',
      keys: ['type'],
    });
    expect(strategicListStrategy(['spec', 'imagePullSecrets'], POD)).toEqual({ type: 'map', keys: ['name'] });
    expect(strategicListStrategy(['spec', 'finalizers'], { group: '', kind: 'Namespace' })).toEqual({
      type: 'replace',
    });
  });

  it('on maps without lists it is exactly a merge patch, and never mutates its input (property)', () => {
    const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean());
    const map = fc.letrec((tie) => ({
      node: fc.dictionary(
        fc.stringMatching(/^[a-z]{1,3}$/),
        fc.oneof({ depthSize: 'small' }, leaf, tie('node')),
      ),
    })).node;
    const patchArb = fc.letrec((tie) => ({
      node: fc.dictionary(
        fc.stringMatching(/^[a-z]{1,3}$/),
        fc.oneof({ depthSize: 'small' }, leaf, fc.constant(null), tie('node')),
      ),
    })).node;
    fc.assert(
      fc.property(map, patchArb, (doc, patch) => {
        const copy = structuredClone(doc);
        expect(applyStrategicMergePatch(doc, patch, CONFIGMAP)).toEqual(applyMergePatch(doc, patch));
        expect(doc).toEqual(copy);
      }),
    );
  });
});
