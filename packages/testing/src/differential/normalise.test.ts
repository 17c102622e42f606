import { describe, expect, it } from 'vitest';

import { differences, generateNames, normalise } from './normalise.js';

describe('normalise', () => {
  it('replaces run-specific values, also inside messages', () => {
    const body = {
      metadata: {
        uid: '0a1b2c3d-0000-4000-8000-123456789abc',
        resourceVersion: '42',
        creationTimestamp: '2024-01-01T00:00:00Z',
      },
      message: 'Key: /x, ResourceVersion: 17, \\"resourceVersion\\":\\"9\\", (*bool)(0xc00012abcd)',
      metadataList: { continue: 'eyJ2IjoibWV0YSJ9' },
      rows: [{ cells: ['a', '5m3s'] }],
    };
    expect(normalise(body)).toEqual({
      metadata: { uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
      message: 'Key: /x, ResourceVersion: <rv>, \\"resourceVersion\\":\\"<rv>\\", (*bool)(0x…)',
      metadataList: { continue: '<continue>' },
      rows: [{ cells: ['a', '<age>'] }],
    });
  });

  it('normalises generated name suffixes of the generateNames seen', () => {
    const a = { metadata: { name: 'web-x7k2p', generateName: 'web-' } };
    const names = generateNames(a);
    expect(names).toEqual(['web-']);
    expect(normalise({ m: 'ConfigMap "web-x7k2p" is invalid' }, names)).toEqual({
      m: 'ConfigMap "web-<gen>" is invalid',
    });
  });
});

describe('differences', () => {
  it('lists differing paths only, ignoring key order', () => {
    expect(differences({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
    expect(differences({ a: 1, b: { c: [1, 2] } }, { a: 2, b: { c: [1, 3] } })).toEqual([
      'a: real 1 | embedded 2',
      'b.c[1]: real 2 | embedded 3',
    ]);
  });
});
