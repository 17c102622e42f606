/**
 * A vitest `globalSetup` that says once, at the start of a run, which test backends run and, when
 * the real-server tier is off, why and how to turn it on:
 * `test: { globalSetup: ['@rxkube/testing/vitest/global-setup'] }`.
 *
 * @module @rxkube/testing/vitest/global-setup
 */
import { REAL_TIER_HOW, selectedBackends } from '../backends/backends.js';

/**
 * Prints the backend selection (throws for a bad `RXKUBE_TEST_BACKEND`, failing the run early).
 *
 * ## Example
 * ```ts
 * // vitest.config.ts
 * export default defineConfig({
 *   test: { globalSetup: ['@rxkube/testing/vitest/global-setup'] },
 * });
 * ```
 */
export default function setup(): void {
  const backends = selectedBackends();
  const on = backends.filter((b) => b.enabled).map((b) => b.name);
  const lines = [`rxkube: test backends: ${on.join(' and ')}`];
  for (const b of backends) {
    if (!b.enabled) lines.push(`rxkube: ${b.name} backend skipped (${b.reason ?? 'not selected'})`);
  }
  const real = backends.find((b) => b.name === 'real');
  if (
    real !== undefined &&
    !real.enabled &&
    !real.required &&
    !(real.reason ?? '').includes('RXKUBE_TEST_BACKEND')
  ) {
    lines.push(`rxkube: to run the real-server tier too, ${REAL_TIER_HOW}`);
  }
  console.log(lines.join('\n'));
}
