import { describe, expect, it } from 'vitest';

import { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import { ApiError } from '../status.js';
import type { KObj } from '../store/object.js';
import { humanDuration, parseIncludeObject, readJsonPath, tableOf } from './table.js';

const NOW = Date.parse('2026-11-22T06:30:00Z');
const cm = (name: string, created: string, data: Record<string, string>): KObj => ({
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name, namespace: 'wire', creationTimestamp: created, resourceVersion: '7' },
  data,
});

function configMaps(): ResourceType {
  const t = new Registry().lookup('', 'v1', 'configmaps');
  if (!t) throw new Error('configmaps missing');
  return t;
}

describe('humanDuration (duration.HumanDuration)', () => {
  it.each([
    [-5, '<invalid>'],
    [-0.5, '0s'],
    [0, '0s'],
    [119, '119s'],
    [120, '2m'],
    [5 * 60 + 3, '5m3s'],
    [150 * 60, '150m'],
    [3 * 3600, '3h'],
    [7 * 3600 + 30 * 60, '7h30m'],
    [30 * 3600, '30h'],
    [52 * 3600, '2d4h'],
    [30 * 86400, '30d'],
    [3 * 365 * 86400 + 10 * 86400, '3y10d'],
    [9 * 365 * 86400, '9y'],
  ])('%d s → %s', (s, expected) => {
    expect(humanDuration(s)).toBe(expected);
  });
});

describe('readJsonPath', () => {
  it('reads dotted paths and indexes, undefined when absent', () => {
    const o = { spec: { size: 2, items: [{ n: 'a' }] } };
    expect(readJsonPath(o, '.spec.size')).toBe(2);
    expect(readJsonPath(o, '{.spec.items[0].n}')).toBe('a');
    expect(readJsonPath(o, '.status.phase')).toBeUndefined();
  });

  it('reads the condition filter printer columns use (first match), undefined when none matches', () => {
    const o = {
      status: {
        conditions: [
          { type: 'Progressing', status: 'True' },
          { type: 'Ready', status: 'False', reason: 'Waiting', observedGeneration: 3 },
        ],
      },
    };
    expect(readJsonPath(o, '.status.conditions[?(@.type=="Ready")].status')).toBe('False');
    expect(readJsonPath(o, ".status.conditions[?(@.type=='Ready')].reason")).toBe('Waiting');
    expect(readJsonPath(o, '.status.conditions[?(@.observedGeneration==3)].type')).toBe('Ready');
    expect(readJsonPath(o, '.status.conditions[?(@.type=="Available")].status')).toBeUndefined();
    expect(readJsonPath({ status: {} }, '.status.conditions[?(@.type=="Ready")].status')).toBeUndefined();
  });
});

describe('tableOf', () => {
  it('ConfigMap printer: Name, Data (key count), Age; rows carry PartialObjectMetadata (file 16)', () => {
    const t = tableOf(
      configMaps(),
      [cm('a', '2026-11-22T06:29:00Z', { x: '1', y: '2' })],
      { resourceVersion: '7' },
      'Metadata',
      NOW,
    );
    expect((t['columnDefinitions'] as { name: string; type: string }[]).map((c) => [c.name, c.type])).toEqual(
      [
        ['Name', 'string'],
        ['Data', 'string'],
        ['Age', 'string'],
      ],
    );
    expect(t['rows']).toEqual([
      {
        cells: ['a', 2, '60s'],
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: {
            name: 'a',
            namespace: 'wire',
            resourceVersion: '7',
            creationTimestamp: '2026-11-22T06:29:00Z',
          },
        },
      },
    ]);
  });

  it('includeObject=None gives null objects, Object the whole object', () => {
    const o = cm('a', '2026-11-22T06:29:00Z', {});
    const none = tableOf(configMaps(), [o], {}, 'None', NOW)['rows'] as { object: unknown }[];
    expect(none[0]?.object).toBeNull();
    const full = tableOf(configMaps(), [o], {}, 'Object', NOW)['rows'] as { object: unknown }[];
    expect(full[0]?.object).toEqual(o);
  });

  it('custom resources: Name then additionalPrinterColumns, null for a missing value (file 12)', () => {
    const base = configMaps();
    const widgets: ResourceType = {
      ...base,
      builtin: false,
      kind: 'Widget',
      printerColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    };
    const w: KObj = {
      kind: 'Widget',
      apiVersion: 'example.com/v1',
      metadata: { name: 'w', creationTimestamp: '2026-11-22T06:30:00Z' },
      spec: { size: 1 },
    };
    const t = tableOf(widgets, [w], {}, 'None', NOW);
    expect((t['rows'] as { cells: unknown[] }[])[0]?.cells).toEqual(['w', 1, null, '0s']);
    const noColumns = tableOf({ ...widgets, printerColumns: [] }, [w], {}, 'None', NOW);
    expect((noColumns['columnDefinitions'] as { name: string }[]).map((c) => c.name)).toEqual([
      'Name',
      'Age',
    ]);
  });

  it('rejects an unknown includeObject with a 400 naming the parameter', () => {
    expect(parseIncludeObject(null)).toBe('Metadata');
    expect(() => parseIncludeObject('All')).toThrow(ApiError);
    expect(() => parseIncludeObject('All')).toThrow(/includeObject/);
  });
});
