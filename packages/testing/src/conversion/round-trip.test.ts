import type { Conversion } from '@rxkube/kube/webhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { checkConversionRoundTrip } from './round-trip.js';

const lossless: Conversion = {
  hub: 'v2',
  spokes: {
    v1: {
      toHub: (o) => ({ ...o, spec: { replicas: (o.spec as { size: number }).size } }),
      fromHub: (o) => ({ ...o, spec: { size: (o.spec as { replicas: number }).replicas } }),
    },
  },
};

describe('checkConversionRoundTrip', () => {
  it('passes a lossless conversion from every version', () => {
    expect(() =>
      checkConversionRoundTrip(lossless, {
        group: 'example.com',
        kind: 'Gadget',
        specs: { v1: fc.record({ size: fc.nat() }), v2: fc.record({ replicas: fc.nat() }) },
      }),
    ).not.toThrow();
  });

  it('fails a conversion that drops a field, naming the versions and the object', () => {
    // v2 has `paint`, v1 has nowhere to keep it
    expect(() =>
      checkConversionRoundTrip(lossless, {
        group: 'example.com',
        kind: 'Gadget',
        specs: { v2: fc.record({ replicas: fc.nat(), paint: fc.constantFrom('red', 'teal') }) },
      }),
    ).toThrow(/Gadget v2 → v1 → v2 changed the object/);
  });

  it('fails a conversion that throws, and refuses a version the conversion does not know', () => {
    const throwing: Conversion = {
      hub: 'v2',
      spokes: {
        v1: {
          toHub: () => {
            throw new Error('boom');
          },
          fromHub: (o) => o,
        },
      },
    };
    expect(() =>
      checkConversionRoundTrip(throwing, { group: 'g', kind: 'K', specs: { v1: fc.constant({}) } }),
    ).toThrow(/boom/);
    expect(() =>
      checkConversionRoundTrip(lossless, { group: 'g', kind: 'K', specs: { v9: fc.constant({}) } }),
    ).toThrow(/v9 is neither the hub \(v2\) nor a spoke \(v1\)/);
  });
});
