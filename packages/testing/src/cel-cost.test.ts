/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
/**
 * CEL's runtime cost budget on writes, the same on both backends (kube-apiserver v1.24 with
 * CustomResourceValidationExpressions on; facts in packages/cel/fixtures/README.md): a rule whose
 * evaluation passes `PerCallLimit` (1,000,000) and rules that together pass an object's
 * `RuntimeCELCostBudget` (10,000,000) refuse the write with kube-apiserver's messages; the same
 * rules on a smaller object pass. Sizes are far from the limits (±40 %), so the verdicts do not
 * hang on the last unit of cel-go's count.
 */
import { beforeAll, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import { describeEachBackend } from './vitest/describe-each-backend.js';
import { waitFor } from './wait-for.js';

const GROUP = 'celcost.example.com';
/** About 9n² for a list of n ints (cel-go's count; packages/cel/src/cost.test.ts). */
const NESTED = 'self.all(x, self.all(y, x == y || x != y))';
/** Up to 10,000,000 units of CEL per write take seconds on a loaded 2-core machine: no race, a wider timeout. */
const SLOW = { timeout: 60_000 };
const ints = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

const kindOf = (plural: string): string => `${plural[0]?.toUpperCase() ?? ''}${plural.slice(1, -1)}`;

function crd(plural: string, rules: number, maxItems: number): any {
  return {
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Cluster',
      names: { plural, kind: kindOf(plural) },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    l: {
                      type: 'array',
                      maxItems,
                      items: { type: 'integer' },
                      'x-kubernetes-validations': Array.from({ length: rules }, () => ({ rule: NESTED })),
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

describeEachBackend('CEL cost budget on writes, as kube-apiserver v1.24', (b) => {
  const opts = (body?: unknown) => ({
    headers: { Authorization: `Bearer ${b.cluster.token}` },
    ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    ...(body === undefined ? {} : { body }),
  });
  const path = (plural: string) => `/apis/${GROUP}/v1/${plural}`;
  const create = (plural: string, name: string, n: number) =>
    call(
      b.cluster.url,
      'POST',
      path(plural),
      opts({ apiVersion: `${GROUP}/v1`, kind: kindOf(plural), metadata: { name }, spec: { l: ints(n) } }),
    );

  beforeAll(async () => {
    // estimated costs stay under v1.24's limits (10M per rule, 100M per CRD), so both are accepted
    for (const [plural, rules, maxItems] of [
      ['percalls', 1, 1000],
      ['budgets', 13, 400],
    ] as const) {
      const r = await call(
        b.cluster.url,
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        opts(crd(plural, rules, maxItems)),
      );
      expect(r.status, r.text.slice(0, 400)).toBe(201);
      await waitFor(
        `${plural}.${GROUP} served`,
        async () => (await call(b.cluster.url, 'GET', path(plural), opts())).status === 200,
      );
    }
  });

  it('a rule under the per-call limit passes (300 items: about 810,000)', SLOW, async () => {
    const r = await create('percalls', 'small', 300);
    expect(r.status, r.text.slice(0, 400)).toBe(201);
  });

  it('a rule over the per-call limit refuses the write (400 items: about 1,440,000)', SLOW, async () => {
    const r = await create('percalls', 'large', 400);
    expect(r.status, r.text.slice(0, 400)).toBe(422);
    const message = `Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${NESTED}`;
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.l', message }]);
    expect(r.body.message).toBe(`Percall.${GROUP} "large" is invalid: spec.l: ${message}`);
  });

  it('rules that together pass the object’s budget refuse the write (13 × about 810,000)', SLOW, async () => {
    const r = await create('budgets', 'over', 300);
    expect(r.status, r.text.slice(0, 400)).toBe(422);
    const message =
      'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run';
    expect(r.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.l', message }]);
    expect(r.body.message).toBe(`Budget.${GROUP} "over" is invalid: spec.l: ${message}`);
  });

  it('the same rules on a smaller object stay within the budget (13 × about 200,000)', SLOW, async () => {
    const r = await create('budgets', 'under', 150);
    expect(r.status, r.text.slice(0, 400)).toBe(201);
  });
});
