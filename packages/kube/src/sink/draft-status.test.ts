import { describe, expect, it } from 'vitest';

import type { KubeObject } from '../types.js';
import { draftStatus, setObservedGeneration } from './draft-status.js';
import { applyJsonPatchForTest } from './apply-json-patch.test.helper.js';

interface WidgetStatus {
  observedGeneration?: number;
  phase?: string;
  replicas?: number;
}
type Widget = KubeObject<{ size: number }, WidgetStatus>;

const widget = (status?: WidgetStatus, generation = 3): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { namespace: 'ns', name: 'w', generation },
  spec: { size: 1 },
  ...(status !== undefined ? { status } : {}),
});

describe('draftStatus', () => {
  it('gives the JSON patch under /status and the next status', () => {
    const w = widget({ phase: 'Pending', observedGeneration: 2 });
    const { next, patch } = draftStatus(w, (s) => {
      setObservedGeneration(s, w);
      s.phase = 'Ready';
    });
    expect(next).toEqual({ phase: 'Ready', observedGeneration: 3 });
    expect(patch).toEqual([
      { op: 'replace', path: '/status/observedGeneration', value: 3 },
      { op: 'replace', path: '/status/phase', value: 'Ready' },
    ]);
    expect(applyJsonPatchForTest(w, patch)).toEqual({ ...w, status: next });
    expect(w.status).toEqual({ phase: 'Pending', observedGeneration: 2 }); // not mutated
  });

  it('an unchanged status gives no operation', () => {
    const w = widget({ phase: 'Ready', observedGeneration: 3 });
    const { next, patch } = draftStatus(w, (s) => {
      setObservedGeneration(s, w);
      s.phase = 'Ready';
    });
    expect(patch).toEqual([]);
    expect(next).toBe(w.status);
  });

  it('adds /status whole when the object has none, and nothing when the draft stays empty', () => {
    const w = widget();
    const drafted = draftStatus(w, (s) => {
      s.replicas = 2;
    });
    expect(drafted.patch).toEqual([{ op: 'add', path: '/status', value: { replicas: 2 } }]);
    expect(applyJsonPatchForTest(w, drafted.patch)).toEqual({ ...w, status: { replicas: 2 } });
    expect(draftStatus(w, () => undefined)).toEqual({ next: undefined, patch: [] });
  });

  it('accepts a recipe returning a whole new status', () => {
    const w = widget({ phase: 'Pending' });
    expect(draftStatus(w, () => ({ replicas: 1 })).patch).toEqual([
      { op: 'replace', path: '/status', value: { replicas: 1 } },
    ]);
  });

  it('setObservedGeneration leaves objects without a generation alone', () => {
    const draft: WidgetStatus = { observedGeneration: 1 };
    setObservedGeneration(draft, { metadata: {} });
    expect(draft).toEqual({ observedGeneration: 1 });
  });
});
