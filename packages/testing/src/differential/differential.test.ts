// Differential suite: every case's requests go to a real kube-apiserver v1.24 (startControlPlane)
// and to the embedded server; the answers must agree after normalising uids, resourceVersions,
// timestamps and generated names. Each case cites the Kubernetes source it follows. Where they still
// differ on purpose, the step compares the status only and says why (README › Differences).
// Skipped, with the reason printed, when no control-plane binaries are available.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { dryRunCases } from './cases/dry-run.js';
import { kindCases } from './cases/kinds.js';
import { metadataCases } from './cases/metadata.js';
import { optionCases } from './cases/options.js';
import { patchCases } from './cases/patch.js';
import { semanticsCases } from './cases/semantics.js';
import { watchCases } from './cases/watch.js';
import type { DiffCase } from './harness.js';
import { DifferentialPair, differentialSkipReason } from './harness.js';

const skip = differentialSkipReason();
if (skip !== undefined) console.info(`rxkube: differential suite skipped (${skip})`);

const groups: [string, DiffCase[]][] = [
  ['object metadata', metadataCases],
  ['request options and media types', optionCases],
  ['patch bodies', patchCases],
  ['dry runs and deletecollection', dryRunCases],
  ['generation, Events, representations', semanticsCases],
  ['per-kind rules', kindCases],
];

describe.skipIf(skip !== undefined)('embedded server vs kube-apiserver v1.24', () => {
  let pair: DifferentialPair;
  let n = 0;
  const ns = (): string => `diff-${String(++n)}`;

  beforeAll(async () => {
    pair = await DifferentialPair.start();
  }, 120_000);
  afterAll(async () => {
    await pair.stop();
  }, 120_000);

  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const c of cases) {
        it(`${c.name} (${c.cite})`, async () => {
          expect(await pair.run(c, ns())).toEqual([]);
        }, 60_000);
      }
    });
  }

  describe('watches', () => {
    for (const c of watchCases) {
      it(`${c.name} (${c.cite})`, async () => {
        expect(await pair.runWatch(c, ns())).toEqual([]);
      }, 60_000);
    }
  });
});
