/**
 * The server-side apply scenarios of `apply.differential.test.ts` replayed against the embedded
 * server alone, each answer compared with what a real kube-apiserver v1.24 answered
 * (`fixtures/kube-v1.24/apply-scenarios.json`, recorded by the differential suite with
 * `RXKUBE_RECORD_FIXTURES=1`): the same proof where no control plane is available.
 */
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AdminClient } from '../cluster/admin-client.js';
import { type Answer, answerDiffs, sendTo, waitServed } from '../internal/differential.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import { SCENARIOS, SCENARIOS_FIXTURE, WIDGET_CRD } from './scenarios/index.js';

const recorded = JSON.parse(readFileSync(SCENARIOS_FIXTURE, 'utf8')) as Record<string, Answer[]>;

describe('server-side apply scenarios: embedded vs recorded kube-apiserver v1.24 answers', () => {
  let server: ApiServer;
  let client: AdminClient;

  beforeAll(async () => {
    server = await startApiServer({ logger: { error: () => undefined } });
    client = new AdminClient({ url: server.url, token: server.token });
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ssa' } };
    expect((await client.request('POST', '/api/v1/namespaces', ns)).status).toBe(201);
    const crd = await client.request(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      WIDGET_CRD,
    );
    expect(crd.status).toBe(201);
    await waitServed([client], '/apis/example.com/v1/namespaces/ssa/widgets');
  });
  afterAll(() => server.stop());

  for (const scenario of SCENARIOS) {
    it(`${scenario.name} (${scenario.source})`, async () => {
      const answers = recorded[scenario.name];
      expect(answers, 'recorded answers (re-record with RXKUBE_RECORD_FIXTURES=1)').toHaveLength(
        scenario.steps.length,
      );
      for (const [i, step] of scenario.steps.entries()) {
        const real = answers?.[i] ?? { status: 0, body: undefined };
        const ours = await sendTo(client, step);
        expect(answerDiffs(ours, real), `step ${String(i)} ${step.method} ${step.path}`).toEqual([]);
      }
    });
  }
});
