/**
 * Differential tests of server-side apply: the same sequences of applies, updates and patches sent
 * to the embedded server and to a real kube-apiserver v1.24 (`startControlPlane()`), every answer
 * compared — status, object and managedFields — after normalising uids, resourceVersions and
 * times. Skipped, with the reason in its name and printed, without `KUBEBUILDER_ASSETS`.
 *
 * The behaviours follow structured-merge-diff v4.2.1 (`typed/`, `merge/update.go`) and the v1.24
 * field manager (`apiserver/pkg/endpoints/handlers/fieldmanager`); each scenario names the file.
 *
 * `RXKUBE_RECORD_FIXTURES=1` also writes the real server's normalised answers to
 * `fixtures/kube-v1.24/apply-scenarios.json`, which `apply.scenarios.test.ts` replays against the
 * embedded server where no control plane is available.
 */
import { writeFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REAL_TIER_HOW } from '../backends/backends.js';
import { controlPlaneAssetsAvailable } from '../control-plane/assets.js';
import type { ControlPlane } from '../control-plane/control-plane.js';
import { startControlPlane } from '../control-plane/control-plane.js';
import { type Answer, Twin } from '../internal/differential.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import { SCENARIOS, SCENARIOS_FIXTURE, WIDGET_CRD } from './scenarios/index.js';

const assets = controlPlaneAssetsAvailable(['etcd', 'kube-apiserver']);
const skipReason = assets.available ? '' : `skipped: no real control plane (${REAL_TIER_HOW})`;
if (skipReason) console.warn(`[apply.differential] ${skipReason}`);

describe.skipIf(!assets.available)(
  `server-side apply: embedded vs real kube-apiserver v1.24${skipReason ? ` (${skipReason})` : ''}`,
  () => {
    let embedded: ApiServer;
    let real: ControlPlane;
    let twin: Twin;

    beforeAll(async () => {
      [embedded, real] = await Promise.all([
        startApiServer({ logger: { error: () => undefined } }),
        startControlPlane(),
      ]);
      twin = new Twin(embedded, real);
      const ns = await twin.send({
        method: 'POST',
        path: '/api/v1/namespaces',
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ssa' } },
      });
      expect(ns.diffs).toEqual([]);
      const crd = await twin.send({
        method: 'POST',
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        body: WIDGET_CRD,
      });
      expect(crd.status).toEqual([201, 201]);
      await twin.waitServed('/apis/example.com/v1/namespaces/ssa/widgets');
    }, 180_000);
    const recorded: Record<string, Answer[]> = {};
    afterAll(async () => {
      await Promise.all([embedded?.stop(), real?.stop()]);
      if (process.env['RXKUBE_RECORD_FIXTURES'] === '1' && Object.keys(recorded).length === SCENARIOS.length)
        writeFileSync(SCENARIOS_FIXTURE, `${JSON.stringify(recorded, null, 1)}\n`);
    });

    for (const scenario of SCENARIOS) {
      it(`${scenario.name} (${scenario.source})`, async () => {
        const answers: Answer[] = [];
        for (const [i, step] of scenario.steps.entries()) {
          const reply = await twin.send(step);
          answers.push({ status: reply.status[1], body: reply.real });
          expect(reply.diffs, `step ${String(i)} ${step.method} ${step.path}`).toEqual([]);
        }
        recorded[scenario.name] = answers;
      });
    }
  },
);
