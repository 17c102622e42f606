/** The Gadget conversions lose nothing, from either version (the property users write). */
import { checkConversionRoundTrip } from '@rxkube/testing/conversion';
import fc from 'fast-check';
import { it } from 'vitest';
import { gadgetConversion } from './gadget.js';

it('converts Gadgets v1 ⇄ v2 without losing anything', () => {
  checkConversionRoundTrip(gadgetConversion, {
    group: 'example.com',
    kind: 'Gadget',
    specs: {
      v1: fc.record({ size: fc.nat() }),
      v2: fc.record({
        replicas: fc.nat(),
        paint: fc.option(fc.constantFrom('red', 'teal'), { nil: undefined }),
      }),
    },
  });
});
