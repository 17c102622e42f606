/**
 * A vitest `globalSetup` that says once, at the start of a run, which test backends run and, when
 * the real-server tier is off, why and how to turn it on:
 * `test: { globalSetup: ['@rxkube/testing/vitest/global-setup'] }`.
 *
 * @module @rxkube/testing/vitest/global-setup
 */
import type { BackendSelection } from '../backends/backends.js';
import { REAL_TIER_HOW, selectedBackends } from '../backends/backends.js';

/**
 * Prints the backend selection (throws for a bad `RXKUBE_TEST_BACKEND`, failing the run early).
 *
 * ## Example
 * ```ts
 * // vitest.config.ts
 * import { defineConfig } from 'vitest/config';
 *
 * export default defineConfig({
 *   test: { globalSetup: ['@rxkube/testing/vitest/global-setup'] },
 * });
 * ```
 */
export default function setup(): void {
  console.log(backendLines(selectedBackends()).join('\n'));
}

/**
 * The lines {@link setup} prints: which backends run, and for each skipped one why — with how to
 * turn the real tier on said once (the skipped suites and the closing summary name only the
 * short reason).
 *
 * ## Example
 * ```ts
 * import { backendLines } from '@rxkube/testing/vitest/global-setup';
 *
 * backendLines(selectedBackends({})); // ['rxkube: test backends: embedded', 'rxkube: real backend skipped (…); to run …']
 * ```
 */
export function backendLines(backends: readonly BackendSelection[]): string[] {
  const on = backends.filter((b) => b.enabled).map((b) => b.name);
  const lines = [`rxkube: test backends: ${on.join(' and ')}`];
  for (const b of backends) {
    if (b.enabled) continue;
    const skipped = `rxkube: ${b.name} backend skipped (${b.reason ?? 'not selected'})`;
    const howTo =
      b.name === 'real' && !b.required && !(b.reason ?? '').includes('RXKUBE_TEST_BACKEND')
        ? `; to run the real-server tier too, ${REAL_TIER_HOW}`
        : '';
    lines.push(skipped + howTo);
  }
  return lines;
}
