/**
 * A run without the real-server tier says how to turn it on once: the global setup's line carries
 * the how-to, the skipped suites' reason (which the closing summary counts) only the short why.
 */
import { describe, expect, it } from 'vitest';

import { selectedBackends } from '../backends/backends.js';
import { backendLines } from './global-setup.js';

const count = (text: string, part: string): number => text.split(part).length - 1;

describe('global setup: the backend selection', () => {
  it('says how to enable the real tier once, the skip reason stays short', () => {
    const backends = selectedBackends({});
    const real = backends.find((b) => b.name === 'real');
    expect(real?.reason).toBe(
      'real-server tier off: no control-plane binaries: KUBEBUILDER_ASSETS is not set',
    );
    const printed = [...backendLines(backends), real?.reason ?? ''].join('\n');
    expect(count(printed, 'setup-envtest')).toBe(1);
    expect(backendLines(backends)).toEqual([
      'rxkube: test backends: embedded',
      expect.stringMatching(
        /^rxkube: real backend skipped \(real-server tier off: no control-plane binaries: KUBEBUILDER_ASSETS is not set\); to run the real-server tier too, set KUBEBUILDER_ASSETS/,
      ),
    ]);
  });

  it('names a backend turned off by RXKUBE_TEST_BACKEND without the how-to', () => {
    expect(backendLines(selectedBackends({ RXKUBE_TEST_BACKEND: 'embedded' }))).toEqual([
      'rxkube: test backends: embedded',
      'rxkube: real backend skipped (RXKUBE_TEST_BACKEND=embedded)',
    ]);
  });
});
